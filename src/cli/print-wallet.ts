/**
 * Wallet runs' outcomes as the command prints them (`load --workload`, `bench --workload`):
 * formatted only; the session decided the status and the exit code.
 */
import { summaryText } from '../wallet/load-summary';
import { abuseText } from '../wallet/abuse-text';
import { textTable } from '../core/text-table';
import { answeringText } from '../core/answering';
import { replyHoldLine } from '../servers/reply-hold';
import type { RunOutcome } from '../runs/outcome';
import type { WalletLoadDetail } from '../runs/kinds/wallet-load';
import type { WalletBenchDetail } from '../runs/kinds/wallet-bench';

export function printWalletLoad(o: RunOutcome<WalletLoadDetail>, out: { json: boolean }): string {
  if (out.json) return JSON.stringify(o.json, null, 2);
  const d = o.detail;
  if (d.part === 'shard') return `shard ${String(o.json.shard)}'s own part of the test (the coordinator, shard 1, prints the whole):\n` + summaryText(o.runId!, d.workload, d.summaries, o.answering, d.setups, null, d.replyHolds.map(replyHoldLine));
  if (d.part === 'merged') {
    const skew = Object.entries(d.merged!.startSkew).map(([meeting, s]) => `start skew (${meeting}): ${s.skewMs.toFixed(3)} ms between the first and the last of ${s.shards} shards`);
    return `coordinated wallet load of ${d.merged!.shards} shards, merged into ${o.db}\n` + summaryText(o.runId!, d.workload, d.summaries, o.answering, d.setups, o.db, d.replyHolds.map(replyHoldLine)) + (skew.length ? `\n${skew.join('\n')}` : '');
  }
  const statements = [...(d.searched.arrivals ? d.searches : []), ...(d.searched.held ? d.heldSearches : [])].map((f) => f.statement);
  const lastSteps = [d.searched.arrivals && "arriving wallets below: each server's last step", d.searched.held && "notifications below: each server's last held step"].filter(Boolean).join('; ');
  return (statements.length ? `${statements.join('\n')}\n\n(${lastSteps})\n` : '') + summaryText(o.runId!, d.workload, d.summaries, o.answering, d.setups, o.db, d.replyHolds.map(replyHoldLine)) + abuseText(d.summaries) + (d.costs ? `\n\n${d.costs}` : '');
}

export function printWalletBench(o: RunOutcome<WalletBenchDetail>, out: { json: boolean }): string {
  if (out.json) return JSON.stringify(o.json, null, 2);
  const { rows, verify, workload, replyHolds } = o.detail;
  const head = ['server', 'wallets', 'syncs', 'failed', verify ? 'mismatched' : 'verified', 'median of wallet medians', 'largest wallet (median)'];
  const cells = rows.map((row) => [
    row.server,
    String(row.wallets),
    String(row.syncs),
    String(row.failed),
    verify ? String(row.mismatched) : 'no (--verify)',
    row.medianMs === null ? '-' : `${row.medianMs.toFixed(1)} ms`,
    row.largest ? `${row.largest.wallet} (${row.largest.txs} txs): ${row.largest.medianMs === null ? '-' : `${row.largest.medianMs.toFixed(1)} ms`}` : '-',
  ]);
  // Before the table: a server that answered none of its syncs makes its row meaningless.
  const silent = o.answering.flatMap((a) => {
    const said = answeringText(a);
    return said ? [`${a.server}: ${said}\n`] : [];
  });
  const failures = rows.filter((row) => row.firstFailure).map((row) => `${row.server}: ${row.failed} of ${row.syncs} syncs failed; the first at ${row.firstFailure}\n`);
  const held = replyHolds.map((h) => `${replyHoldLine(h)}\n`);
  return `wallet run ${o.runId} (${workload} workload, ${o.status}), time to synced wallet:\n${silent.join('')}${held.join('')}${textTable(head, cells)}\n${failures.join('')}results: ${o.db}; report: npm run report -- --db ${o.db}`;
}
