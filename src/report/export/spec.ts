import { Exporter, writeOutput } from './exporter';

/** The Vega-Lite spec of each chart, data inline: open it in any Vega editor to restyle it. */
export const specExporter: Exporter = {
  name: 'spec',
  write: ({ charts, outDir }) => charts.map((c) => writeOutput(outDir, `${c.def.id}.vl.json`, JSON.stringify(c.spec, null, 2) + '\n')),
};
