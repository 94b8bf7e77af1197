/** A table as plain strings, rendered the same way into Markdown and HTML. */
export interface Table {
  title: string;
  note?: string;
  head: string[];
  align: Array<'left' | 'right'>;
  rows: string[][];
}

export const fmtMs = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));

export const fmtErrors = (e: Record<string, number>) =>
  Object.entries(e)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '0';

export function markdownTable(t: Table): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const line = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;
  return [line(t.head), line(t.align.map((a) => (a === 'right' ? '---:' : '---'))), ...t.rows.map(line)].join('\n');
}

