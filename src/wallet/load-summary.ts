/**
 * What a wallet load prints at the end: per server, the wallets held and what holding them cost,
 * the arriving wallets' time to synced from their intended arrival, and the block notifications
 * beside each server's way of learning of blocks. A server whose arrivals stopped being answered,
 * and a generator that fell behind, are said first.
 */
import { answeringText, type Answering } from '../core/answering';
import { textTable } from '../core/text-table';
import { heldReconnectsText } from '../core/held-reconnects';
import { outageText } from '../core/outages';
import type { ServerLoadSummary } from './load';

export function summaryText(runId: number, workload: string, rows: ServerLoadSummary[], answering: readonly Answering[], setups: Map<string, unknown>, db: string | null, heldReplies: readonly string[] = []): string {
  const ms = (v: number | null | undefined) => (v === null || v === undefined ? '-' : v < 10 ? v.toFixed(2) : v.toFixed(0));
  const out = [db === null ? `this shard's part (${workload} workload)` : `wallet load run ${runId} (${workload} workload)`];
  // Before anything else about it: a server that answered nothing, or went silent, makes every other figure of it partial.
  for (const a of answering) {
    const said = answeringText(a);
    if (said) out.push(`${a.server}: wallet syncs ${said}`);
  }
  // What the sync times contain: ElectrumX's hold of small replies (one line per server that has it).
  out.push(...heldReplies);
  for (const r of rows) if (r.arrivals?.generator.bound) out.push(`warning: ${r.server}: GENERATOR-BOUND: ${r.arrivals.generator.reasons.join('; ')}`);
  const held = rows.filter((r) => r.held > 0);
  if (held.length) {
    out.push('\nheld wallets:');
    out.push(textTable(['server', 'held', 'failed syncs', 'time to hold', 'server RSS per held wallet', 'our loop delay p99'], held.map((r) => [r.server, String(r.held), String(r.holdFailed), `${r.holdSeconds.toFixed(1)} s`, r.rssPerHeldKiB === null ? 'unknown' : `${r.rssPerHeldKiB.toFixed(1)} KiB`, `${ms(r.loopDelayP99Ms)} ms`])));
    for (const r of held) {
      if (!r.reconnects || r.reconnects.lost === 0) continue;
      out.push(`${r.server}: ${heldReconnectsText(r.reconnects)}`);
      for (const o of r.reconnects.outages) out.push(`${r.server}: ${outageText(o)}`);
    }
  }
  const arriving = rows.filter((r) => r.arrivals);
  if (arriving.length) {
    out.push('\narriving wallets, time to synced from the intended arrival (ms):');
    out.push(textTable(['server', 'intended', 'synced', 'failed', 'not started (stopped)', 'p50', 'p90', 'p99', 'arrival lag p99'], arriving.map((r) => { const x = r.arrivals!; return [r.server, String(x.intended), String(x.synced), String(x.failed), String(x.notStarted), ms(x.p50Ms), ms(x.p90Ms), ms(x.p99Ms), ms(x.lagP99Ms)]; })));
  }
  const notified = rows.filter((r) => r.notify);
  if (notified.length) {
    const natural = notified.some((r) => r.notify!.mineCallMs === null);
    out.push(natural ? '\nblock notifications, natural blocks: from the first held connection that heard each (ms):' : '\nblock notifications, from the mining call (ms):');
    const line = (r: ServerLoadSummary, k: 'headers' | 'scripthash') => {
      const x = r.notify![k];
      return [r.server, k, String(x.expected), String(x.missing), String(x.duplicate), ms(x.p50Ms), ms(x.p90Ms), ms(x.p99Ms), ms(x.maxMs)];
    };
    out.push(textTable(['server', 'notification', 'expected', 'missing', 'duplicate', 'p50', 'p90', 'p99', 'max', 'our loop delay p99'], notified.flatMap((r) => [[...line(r, 'headers'), ms(r.notify!.loopDelayP99Ms)], [...line(r, 'scripthash'), '']])));
    if (!natural) out.push(`(the mining call itself took ${notified.map((r) => `${ms(r.notify!.mineCallMs)} ms on ${r.server}'s run`).join(', ')}: the uncertainty of "block found")`);
    if (setups.size) {
      out.push('\nhow each server learns of blocks (it dominates these latencies):');
      for (const r of notified) {
        const s = setups.get(r.server) as { polling?: string } | undefined;
        out.push(`  ${r.server}: ${s?.polling ?? 'unknown'}`);
      }
    }
  }
  out.push(db === null ? "\nresults: sent to the coordinator (shard 1), which merges every shard's into one run" : `\nresults: ${db}; report: npm run report -- --db ${db}`);
  return out.join('\n');
}
