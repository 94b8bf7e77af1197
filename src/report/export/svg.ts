import { Exporter, writeOutput } from './exporter';

export const svgExporter: Exporter = {
  name: 'svg',
  write: ({ charts, outDir }) => charts.map((c) => writeOutput(outDir, `${c.def.id}.svg`, c.svg)),
};
