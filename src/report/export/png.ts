/**
 * The charts as PNG for documents that take no SVG. resvg gets the bundled DejaVu files and no
 * system fonts, so a PNG made on any machine has the same text metrics and glyphs.
 */
import { renderAsync } from '@resvg/resvg-js';
import { FONT_FAMILY, FONT_FILES } from '../font';
import { allCharts, Exporter, type OutputFile } from './exporter';

/** Twice the SVG's size: sharp on high-density screens and in print. */
export const PNG_ZOOM = 2;

/**
 * Drawn on libuv's thread pool, not this thread: a chart of many points takes a good part of a
 * second (more on a busy machine), and a stop signal must be answered within 2 s meanwhile.
 */
export async function svgToPng(svg: string, zoom = PNG_ZOOM): Promise<Buffer> {
  const image = await renderAsync(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: zoom },
    font: { fontFiles: [FONT_FILES.regular, FONT_FILES.bold], loadSystemFonts: false, defaultFontFamily: FONT_FAMILY },
  });
  return Buffer.from(image.asPng());
}

export const pngExporter: Exporter = {
  name: 'png',
  fileNames: ({ charts }) => charts.map((c) => `${c.id}.png`),
  serialize: async (r) => {
    const files: OutputFile[] = [];
    for (const c of allCharts(r)) files.push({ name: `${c.def.id}.png`, data: await svgToPng(c.svg) });
    return files;
  },
};
