/**
 * A static SVG has no Vega tooltip handler, but browsers show an element's <title> on hover.
 * Vega writes each mark's description as aria-label; repeating it as a <title> child gives the
 * inline charts of index.html (and the standalone SVGs) tooltips without any script.
 */
const LABELLED = /<(path|rect|circle|line)\b([^>]*?) aria-label="([^"]*)"([^>]*?)\/>/g;

export function withHoverTitles(svg: string): string {
  // The attribute value is already XML-escaped by Vega, and the same escaping is valid as text.
  return svg.replace(LABELLED, (_m, tag: string, before: string, label: string, after: string) =>
    `<${tag}${before} aria-label="${label}"${after}><title>${label}</title></${tag}>`,
  );
}
