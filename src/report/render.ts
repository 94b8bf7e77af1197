/**
 * Vega-Lite → Vega → SVG in Node with Vega's headless View (renderer 'none': no canvas, no browser).
 * Text widths are then estimated rather than measured, which is why the font is fixed (font.ts).
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { withHoverTitles } from './svg-titles';

export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  const compiled = vl.compile(spec as unknown as vl.TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return withHoverTitles(await view.toSVG());
  } finally {
    view.finalize();
  }
}
