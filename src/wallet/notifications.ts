/**
 * What held connections hear of a block. Every notification a held session receives is kept, with
 * its arrival time, until the block it belongs to is judged: per connection, the headers
 * notification of the block's height, and for each paid script the connection subscribed to, the
 * first status change after the block was asked for. None within the wait: missing; the same
 * header or the same status sent again: a duplicate. (A second, different status is a change the
 * server made, not a duplicate: electrs, for one, sends an intermediate status after a block.)
 */
import type { Notification } from './session';
import type { NotificationRecord } from '../store/wallets';

export interface HeldConnection {
  id: number;
  subscribed: Set<string>;
  heard: Notification[];
}

export interface BlockJudgement {
  rows: Array<Omit<NotificationRecord, 'serverId'>>;
  headers: { expected: number; ok: number; missing: number; duplicate: number };
  scripthash: { expected: number; ok: number; missing: number; duplicate: number };
}

const headerHeight = (n: Notification): number | null => {
  if (n.method !== 'blockchain.headers.subscribe' || !Array.isArray(n.params)) return null;
  const h = (n.params[0] as { height?: unknown } | undefined)?.height;
  return typeof h === 'number' ? h : null;
};

const scripthashOf = (n: Notification): string | null =>
  n.method === 'blockchain.scripthash.subscribe' && Array.isArray(n.params) && typeof n.params[0] === 'string' ? n.params[0] : null;

/** Whether every connection has heard what it must of the block (so waiting can stop early). */
export function allHeard(held: HeldConnection[], height: number, paid: Set<string>, sinceNs: bigint): boolean {
  return held.every((c) => {
    if (!c.heard.some((n) => headerHeight(n) === height)) return false;
    for (const sh of paid) if (c.subscribed.has(sh) && !c.heard.some((n) => n.atNs >= sinceNs && scripthashOf(n) === sh)) return false;
    return true;
  });
}

/** Whether every connection subscribed to a paid script has heard of the payment (mempool). */
export function paymentHeard(held: HeldConnection[], paid: Set<string>, sinceNs: bigint): boolean {
  return held.every((c) => [...paid].every((sh) => !c.subscribed.has(sh) || c.heard.some((n) => n.atNs >= sinceNs && scripthashOf(n) === sh)));
}

export function judgeBlock(held: HeldConnection[], height: number, paid: Set<string>, askedNs: bigint): BlockJudgement {
  const j: BlockJudgement = {
    rows: [],
    headers: { expected: 0, ok: 0, missing: 0, duplicate: 0 },
    scripthash: { expected: 0, ok: 0, missing: 0, duplicate: 0 },
  };
  const add = (kind: 'headers' | 'scripthash', c: HeldConnection, sh: string | null, heard: Notification[]) => {
    const tally = j[kind];
    tally.expected++;
    if (heard.length === 0) {
      tally.missing++;
      j.rows.push({ blockHeight: height, kind, connection: c.id, scripthash: sh, latencyNs: null, status: 'missing' });
      return;
    }
    tally.ok++;
    j.rows.push({ blockHeight: height, kind, connection: c.id, scripthash: sh, latencyNs: heard[0].atNs - askedNs, status: 'ok' });
    const seen = new Set<string>();
    for (const n of heard) {
      const what = JSON.stringify(n.params);
      if (!seen.has(what)) {
        seen.add(what);
        continue;
      }
      tally.duplicate++;
      j.rows.push({ blockHeight: height, kind, connection: c.id, scripthash: sh, latencyNs: n.atNs - askedNs, status: 'duplicate' });
    }
  };
  for (const c of held) {
    add('headers', c, null, c.heard.filter((n) => headerHeight(n) === height));
    for (const sh of paid) if (c.subscribed.has(sh)) add('scripthash', c, sh, c.heard.filter((n) => n.atNs >= askedNs && scripthashOf(n) === sh));
    // Judged: what was heard up to now belongs to this block (or to the payment before it).
    c.heard.length = 0;
  }
  return j;
}
