/**
 * A comparison rendered: its tables, the notes that say what their verdicts mean, and the Markdown
 * of `report compare`. The verdicts themselves come from src/verdicts/, which reads them from the
 * store; the report, the commands' summaries and `report compare` show them with these.
 */
import { fmtMs, markdownTable, Table } from './table';
import { verdictText } from '../verdicts/verdict';
import type { Comparison } from '../verdicts/comparison';
import { MIN_ROUNDS } from '../verdicts/load';
import { MIN_WALLETS } from '../verdicts/wallet';
import { formatDuration } from '../core/duration';

/** The bench rows of a comparison as a table: per server and method, both p50s and the verdict. */
export function compareTable(c: Comparison, title = 'delta'): Table {
  return {
    title,
    head: ['server', 'method', 'addresses', 'A p50 ms', 'B p50 ms', 'verdict: change [95 % interval], test'],
    align: ['left', 'left', 'right', 'right', 'right', 'left'],
    rows: c.rows.map((r) => [r.server, r.method, String(r.matched), fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
  };
}

/** The turn-by-turn rows of a comparison as a table, in the bench table's shape: per server and percentile, both and the verdict. */
export function pairedLoadTable(c: Comparison, title = 'load delta, turn by turn'): Table {
  return {
    title,
    head: ['server', 'latency', 'rounds', 'A ms', 'B ms', 'verdict: change [95 % interval], test'],
    align: ['left', 'left', 'right', 'right', 'right', 'left'],
    rows: (c.loadPaired?.rows ?? []).map((r) => [r.server, r.percentile, String(r.pairs), fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
  };
}

/** What a turn-by-turn table's verdicts mean, in one paragraph (the report's, the load summary's and compare's). */
export function pairedLoadNote(c: Comparison): string {
  const turn = c.loadPaired ? formatDuration(c.loadPaired.turnMs / 1000) : '?';
  return (
    `The servers took turns of ${turn} under the same load, one at a time, in rounds of one turn each (A B, then B A, …), so drift hits both alike. ` +
    "A and B ms: each server's whole-run percentile, latency from the intended send. The verdict: the median over rounds of the change of B's turn against A's in that round " +
    `(negative = B is faster), its 95 % interval from the sign test over the rounds (at least ${MIN_ROUNDS}); \`slower\` or \`faster\` only when the whole interval is on one side of zero ` +
    `and the change exceeds the noise floor (${c.noiseFloorPct} %), else \`~\` (no change).`
  );
}

/** What an A/B table's verdicts mean, in one paragraph (the report's and the bench summary's). */
export function abNote(c: Comparison): string {
  return (
    'Each server against the baseline (A), measured interleaved in one run (every address called on both in turn, so drift hits both alike). ' +
    'A and B p50: the median of the per-address medians. The verdict: the median per-address change of B against A (negative = B is faster), ' +
    "its 95 % interval from a paired bootstrap over the addresses and the run's passes; `slower` or `faster` only when the whole interval is on one side of zero " +
    `and the change exceeds the noise floor (${c.noiseFloorPct} %), else \`~\` (no change).`
  );
}

/** The title of two databases' comparison. */
export function deltaTitle(dbA: string, dbB: string): string {
  return `# Delta: B (${dbB}) vs A (${dbA})`;
}

export function compareMarkdown(c: Comparison, title: string): string {
  const floor = `\`slower\` or \`faster\` only when the whole interval is on one side of zero and the change exceeds the noise floor (${c.noiseFloorPct} %), else \`~\` (no change).`;
  const lines = [title];
  const benchCompared = (c.load === undefined && c.loadPaired === undefined && c.wallet === undefined && c.walletNote === undefined) || c.rows.length > 0 || c.onlyA.length > 0 || c.onlyB.length > 0;
  if (benchCompared) {
    const table = compareTable(c);
    lines.push(
      '',
      'A and B p50: the median of the per-address medians over the addresses both databases measured (latest completed run of each). ' +
        "The verdict: the median per-address change of B against A (negative = B is faster) with its 95 % interval from a paired bootstrap over the addresses and each run's passes; " +
        floor,
      '',
      markdownTable(table),
    );
    if (c.rows.length === 0) lines.push('', 'No (server, method, address) was measured in both databases.');
    if (c.onlyA.length) lines.push('', `Only in A: ${c.onlyA.join('; ')}.`);
    if (c.onlyB.length) lines.push('', `Only in B: ${c.onlyB.join('; ')}.`);
  }
  if (c.load !== undefined) {
    const table: Table = {
      title: 'load delta',
      head: ['server', 'latency', 'seconds A / B', 'A ms', 'B ms', 'verdict: change [95 % interval], test'],
      align: ['left', 'left', 'right', 'right', 'right', 'left'],
      rows: c.load.map((r) => [r.server, r.percentile, `${r.intervals[0]} / ${r.intervals[1]}`, fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
    };
    lines.push(
      '',
      '## Load',
      '',
      "The latest finished load run of each. A and B ms: the whole run's percentile (from the intended send). The verdict: the change of the median of each second's percentile, " +
        'B against A, with its 95 % interval from a bootstrap over each run\'s seconds (unpaired: two runs\' seconds are not the same moments); ' +
        floor,
      '',
      c.load.length > 0 ? markdownTable(table) : 'No server was loaded in both runs.',
    );
  }
  if (c.loadPaired !== undefined) {
    lines.push('', '## Load, turn by turn', '', `The latest finished load run, interleaved. ${pairedLoadNote(c)}`, '', markdownTable(pairedLoadTable(c)));
  }
  if (c.wallet !== undefined) {
    const table: Table = {
      title: 'wallet delta',
      head: ['server', 'wallet', 'txs', 'syncs A / B', 'A ms', 'B ms', 'verdict: change [95 % interval], test'],
      align: ['left', 'left', 'right', 'right', 'right', 'right', 'left'],
      rows: c.wallet.rows.map((r) => [r.server, r.wallet ?? 'all', r.txs === null ? '' : String(r.txs), `${r.syncs[0]} / ${r.syncs[1]}`, fmtMs(r.a), fmtMs(r.b), verdictText(r.verdict)]),
    };
    lines.push(
      '',
      `## Wallet syncs (${c.wallet.workload})`,
      '',
      'The latest completed wallet bench run of each. A and B ms: the median time to synced of the counted syncs (on an `all` row, the median of the wallets\' medians). ' +
        "The verdict on a server's `all` row: the median per-wallet change of B against A, its 95 % interval from a paired bootstrap over the wallets and each run's passes " +
        `(at least ${MIN_WALLETS} wallets, 2 passes a side); on a wallet's row: the change of its median, from a bootstrap over each run's syncs of it (unpaired; at least 10 counted syncs a side, so \`--passes 11\` or more). ` +
        floor,
      '',
      c.wallet.rows.length > 0 ? markdownTable(table) : 'No wallet was synced on one server in both runs.',
    );
  }
  if (c.walletNote !== undefined) lines.push('', '## Wallet syncs', '', c.walletNote);
  return lines.join('\n') + '\n';
}
