import { allCharts, Exporter } from './exporter';

/** Each chart's Vega-Lite spec with its data inline: open it in any Vega editor to restyle it. */
export const specExporter: Exporter = {
  name: 'spec',
  fileNames: ({ charts }) => charts.map((c) => `${c.id}.vl.json`),
  serialize: (r) => allCharts(r).map((c) => ({ name: `${c.def.id}.vl.json`, data: JSON.stringify(c.spec, null, 1) + '\n' })),
};
