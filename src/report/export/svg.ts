import { allCharts, Exporter } from './exporter';

/** The charts as Vega drew them: vector, with hover titles, for slides and the web. */
export const svgExporter: Exporter = {
  name: 'svg',
  fileNames: ({ charts }) => charts.map((c) => `${c.id}.svg`),
  serialize: (r) => allCharts(r).map((c) => ({ name: `${c.def.id}.svg`, data: c.svg })),
};
