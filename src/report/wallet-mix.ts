/**
 * The request mix of a wallet run: what one sync of each wallet sends per step, per server. Read as
 * one ordered stream of the counted ok syncs' requests, so memory is one sync's step at a time plus
 * a row per server × wallet × step, however many syncs the run holds.
 */
import type Database from 'better-sqlite3';
import type { StepMix } from './wallet-model';

interface StepTally {
  requests: number;
  calls: number;
  bytes: number;
  busyNs: number;
}

/** Time covered by the union of [start, end) intervals given in ascending start order. */
export class BusyTime {
  private total = 0;
  private start = -1;
  private end = -1;

  add(start: number, end: number): void {
    if (start > this.end) {
      this.total += this.end - this.start;
      this.start = start;
      this.end = end;
    } else if (end > this.end) {
      this.end = end;
    }
  }

  get ns(): number {
    return this.total + this.end - this.start;
  }
}

/**
 * Per server and step, the sum over wallets of the wallet's mean per counted ok sync. A mean per
 * wallet, not a sum over syncs: a server that synced a wallet in more passes costs no more for it.
 */
export function readStepMix(db: Database.Database, runId: number, serverNames: Map<number, string>): StepMix[] {
  const syncsOf = new Map<string, number>(); // server id + wallet → counted ok syncs
  const counts = db
    .prepare(`SELECT server_id, wallet, count(*) AS n FROM wallet_syncs WHERE run_id = ? AND warmup = 0 AND status = 'ok' GROUP BY server_id, wallet`)
    .all(runId) as Array<{ server_id: number; wallet: string; n: number }>;
  for (const c of counts) syncsOf.set(`${c.server_id}\u0000${c.wallet}`, c.n);

  const totals = new Map<string, StepTally & { server: number; step: string }>(); // server id + step
  // Typed through `as`: assigned only in the loop and in close(), TypeScript would narrow it to its `null` initializer.
  let current = null as { key: string; server: number; wallet: string; step: string; tally: Omit<StepTally, 'busyNs'>; busy: BusyTime } | null;
  const close = () => {
    if (!current) return;
    const share = 1 / syncsOf.get(`${current.server}\u0000${current.wallet}`)!;
    const key = `${current.server}\u0000${current.step}`;
    let t = totals.get(key);
    if (!t) totals.set(key, (t = { server: current.server, step: current.step, requests: 0, calls: 0, bytes: 0, busyNs: 0 }));
    t.requests += current.tally.requests * share;
    t.calls += current.tally.calls * share;
    t.bytes += current.tally.bytes * share;
    t.busyNs += current.busy.ns * share;
  };
  const rows = db
    .prepare(
      `SELECT s.id AS sync, s.server_id AS server, s.wallet, q.step, q.items, q.bytes, q.offset_ns AS offset, q.latency_ns AS latency
         FROM wallet_syncs s JOIN wallet_requests q ON q.sync_id = s.id
        WHERE s.run_id = ? AND s.warmup = 0 AND s.status = 'ok'
        ORDER BY s.id, q.step, q.offset_ns`,
    )
    .iterate(runId) as IterableIterator<{ sync: number; server: number; wallet: string; step: string; items: number; bytes: number; offset: number; latency: number }>;
  for (const r of rows) {
    const key = `${r.sync}\u0000${r.step}`;
    if (current?.key !== key) {
      close();
      current = { key, server: r.server, wallet: r.wallet, step: r.step, tally: { requests: 0, calls: 0, bytes: 0 }, busy: new BusyTime() };
    }
    current.tally.requests++;
    current.tally.calls += r.items;
    current.tally.bytes += r.bytes;
    current.busy.add(r.offset, r.offset + r.latency);
  }
  close();
  return [...totals.values()]
    .filter((t) => serverNames.has(t.server))
    .map((t) => ({ server: serverNames.get(t.server)!, step: t.step, requests: t.requests, calls: t.calls, bytes: t.bytes, busyMs: t.busyNs / 1e6 }));
}
