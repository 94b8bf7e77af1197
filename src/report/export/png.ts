import { Exporter, writeOutput } from './exporter';

export const pngExporter: Exporter = {
  name: 'png',
  write: ({ charts, outDir }) => charts.map((c) => writeOutput(outDir, `${c.def.id}.png`, c.png)),
};
