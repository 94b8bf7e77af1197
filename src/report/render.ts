/**
 * Vega-Lite → Vega → SVG in Node with Vega's headless View (renderer 'none': no canvas, no browser).
 * Text widths are then estimated rather than measured, which is why the font is fixed (font.ts).
 */
import * as vega from 'vega';
import * as vl from 'vega-lite';
import { withHoverTitles } from './svg-titles';
import { nextTurn } from '../core/next-turn';

export async function renderSvg(spec: Record<string, unknown>): Promise<string> {
  // Vega's promises settle as microtasks: without a turn of the loop between charts, a report
  // would hold the loop from its first chart to its last, and a stop would wait for all of them.
  await nextTurn();
  const compiled = vl.compile(spec as unknown as vl.TopLevelSpec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
  try {
    return withHoverTitles(await view.toSVG());
  } finally {
    view.finalize();
  }
}
