/** The report's medians follow the one definition in src/stats/quantiles.ts (nearest rank). */
export { median as medianOf } from '../core/quantiles';
