/**
 * Vega-Lite → Vega → SVG in Node (no browser), and SVG → PNG with resvg using the bundled DejaVu
 * fonts only, so a PNG's text looks the same on every machine.
 */
import path from 'node:path';
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { Resvg } from '@resvg/resvg-js';
import { FONT } from './charts/spec';

export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const compiled = vl.compile(spec as unknown as vl.TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const FONT_DIR = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');

export function renderPng(svg: string, scale = 2): Buffer {
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: scale },
    font: {
      fontFiles: [path.join(FONT_DIR, 'DejaVuSans.ttf'), path.join(FONT_DIR, 'DejaVuSans-Bold.ttf')],
      loadSystemFonts: false,
      defaultFontFamily: FONT,
    },
  });
  return Buffer.from(resvg.render().asPng());
}
