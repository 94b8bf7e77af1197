/**
 * The one plain-text table for terminals (bench summary, dataset stats, lab status), drawn by
 * cli-table3, which measures cells by display width (a "÷" or "–" is one column, not its bytes).
 * Borderless, colourless and columns two spaces apart, so the output stays readable in a log file
 * and easy to split on whitespace; a dashed rule under the header and before any row in `rules`.
 */
import Table from 'cli-table3';

export type Align = 'left' | 'right';

export interface TextTableOptions {
  /** Per column; missing columns are left-aligned. */
  align?: readonly Align[];
  /** Row indexes before which a dashed rule is drawn (the header always gets one). */
  rulesBefore?: readonly number[];
}

const CHARS = {
  top: '', 'top-mid': '', 'top-left': '', 'top-right': '',
  bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '',
  left: '', 'left-mid': '', right: '', 'right-mid': '',
  mid: '-', 'mid-mid': '  ', middle: '  ',
};

export function textTable(head: readonly string[], rows: readonly (readonly string[])[], opts: TextTableOptions = {}): string {
  const table = new Table({
    head: [...head],
    chars: CHARS,
    colAligns: head.map((_, i) => opts.align?.[i] ?? 'left'),
    style: { head: [], border: [], compact: true, 'padding-left': 0, 'padding-right': 0 },
  });
  const rules = new Set(opts.rulesBefore ?? []);
  // cli-table3 rules only under the header; a rule inside the body is a row of dashes as wide as
  // its column.
  const widths = head.map((h, i) => Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))));
  rows.forEach((r, i) => {
    if (rules.has(i)) table.push(widths.map((w) => '-'.repeat(w)));
    table.push([...r]);
  });
  return table
    .toString()
    .split('\n')
    .map((l) => l.trimEnd())
    .join('\n');
}

function displayWidth(s: string): number {
  return [...s].length;
}
