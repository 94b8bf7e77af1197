/**
 * Wallet runs' outcomes as the command prints them (`load --workload`, `bench --workload`):
 * formatted only; the session decided the status and the exit code.
 */
import { summaryText } from '../wallet/load-summary';
import type { RunOutcome } from '../runs/outcome';
import type { WalletLoadDetail } from '../runs/kinds/wallet-load';

export function printWalletLoad(o: RunOutcome<WalletLoadDetail>, out: { json: boolean }): string {
  if (out.json) return JSON.stringify(o.json, null, 2);
  const d = o.detail;
  if (d.part === 'shard') return `shard ${String(o.json.shard)}'s own part of the test (the coordinator, shard 1, prints the whole):\n` + summaryText(o.runId!, d.workload, d.summaries, o.answering, d.setups, null);
  if (d.part === 'merged') {
    const skew = Object.entries(d.merged!.startSkew).map(([meeting, s]) => `start skew (${meeting}): ${s.skewMs.toFixed(3)} ms between the first and the last of ${s.shards} shards`);
    return `coordinated wallet load of ${d.merged!.shards} shards, merged into ${o.db}\n` + summaryText(o.runId!, d.workload, d.summaries, o.answering, d.setups, o.db) + (skew.length ? `\n${skew.join('\n')}` : '');
  }
  const statements = [...(d.searched.arrivals ? d.searches : []), ...(d.searched.held ? d.heldSearches : [])].map((f) => f.statement);
  const lastSteps = [d.searched.arrivals && "arriving wallets below: each server's last step", d.searched.held && "notifications below: each server's last held step"].filter(Boolean).join('; ');
  return (statements.length ? `${statements.join('\n')}\n\n(${lastSteps})\n` : '') + summaryText(o.runId!, d.workload, d.summaries, o.answering, d.setups, o.db);
}
