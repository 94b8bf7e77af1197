/**
 * The charts as PNG for documents that take no SVG. resvg gets the bundled DejaVu files and no
 * system fonts, so a PNG made on any machine has the same text metrics and glyphs.
 */
import { Resvg } from '@resvg/resvg-js';
import { FONT_FAMILY, FONT_FILES } from '../font';
import { allCharts, Exporter, type OutputFile } from './exporter';
import { nextTurn } from '../../core/next-turn';

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
  serialize: async (r) => {
    const files: OutputFile[] = [];
    for (const c of allCharts(r)) {
      // A chart of many points takes a good part of a second to draw.
      await nextTurn();
      files.push({ name: `${c.def.id}.png`, data: svgToPng(c.svg) });
    }
    return files;
  },
};
