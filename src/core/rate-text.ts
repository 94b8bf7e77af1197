/** A rate as summaries and reports print it: whole numbers from 100 up, one decimal below. */
export const fmtRate = (v: number): string => (v >= 100 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1));
