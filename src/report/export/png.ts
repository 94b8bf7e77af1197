/**
 * The charts as PNG for documents that take no SVG. resvg gets the bundled DejaVu files and no
 * system fonts, so a PNG made on any machine has the same text metrics and glyphs.
 */
import { Resvg } from '@resvg/resvg-js';
import { FONT_FAMILY, FONT_FILES } from '../font';
import { allCharts, Exporter } from './exporter';

/** Twice the SVG's size: sharp on high-density screens and in print. */
export const PNG_ZOOM = 2;

export function svgToPng(svg: string, zoom = PNG_ZOOM): Buffer {
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: zoom },
    font: { fontFiles: [FONT_FILES.regular, FONT_FILES.bold], loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
  });
  return Buffer.from(resvg.render().asPng());
}

export const pngExporter: Exporter = {
  name: 'png',
  fileNames: ({ charts }) => charts.map((c) => `${c.id}.png`),
  serialize: (r) => allCharts(r).map((c) => ({ name: `${c.def.id}.png`, data: svgToPng(c.svg) })),
};
