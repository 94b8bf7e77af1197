/**
 * Abuse profiles: what one misbehaving client does to a server, each bounded in count and time
 * and stopping by itself. One per name in `ABUSE_PROFILES`; each reads its parameters
 * (`PROFILE:param=value,…`, spec.ts) against its own declared defaults and ceilings.
 */
import { createHash } from 'node:crypto';
import { RawConnection, emptyTally, isOver, type AbuseEnd, type AbuseTally, type AbuseTarget } from './wire';

/**
 * What a profile is given: where, its parameters, until when (epoch ms: it closes everything it
 * opened by then), and whether it was stopped.
 */
export interface AbuseRun extends AbuseEnd {
  target: AbuseTarget;
  params: Record<string, number>;
  /** Transactions the server has (txid and height), for the proofs a storm asks for; else found from `scripthashes`' histories. */
  proofs: Array<{ txid: string; height: number }>;
  /** Scripthashes with a history on the server (the ordinary workload's wallets). */
  scripthashes: string[];
  /** What the profile's `prepare` built before the abuse began; without it, `run` builds it first. */
  payload?: string[];
}

export interface AbuseParam {
  default: number;
  /** The ceiling a user may ask for: every profile stays bounded. */
  max: number;
  describe: string;
}

export interface AbuseProfile {
  name: string;
  describe: string;
  params: Record<string, AbuseParam>;
  /** The most connections it holds open at once with these parameters: sockets (open files) of ours. */
  connections(params: Record<string, number>): number;
  /**
   * Builds the texts it writes, before the abuse (and the arrivals beside it) begin, in slices
   * between which the event loop runs: built inside the abuse's window, a 50 000-request batch
   * stalls for ~250 ms the loop that times the arriving wallets, and "during" would show our stall.
   */
  prepare?(params: Record<string, number>, stopped: () => boolean): Promise<string[]>;
  run(r: AbuseRun): Promise<AbuseTally>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Holds until the profile's time is up (or a stop), checking often enough to end within 2 s of it. */
async function holdUntilDone(r: AbuseRun, alive: () => boolean = () => true): Promise<void> {
  while (!isOver(r) && alive()) await sleep(Math.min(200, r.untilMs - Date.now()));
}

/** A pause between steps that a stop or the profile's end cuts short (a step may be a minute apart). */
async function pause(r: AbuseRun, ms: number): Promise<void> {
  const untilMs = Date.now() + ms;
  while (!isOver(r) && Date.now() < untilMs) await sleep(Math.min(200, untilMs - Date.now()));
}

/** A scripthash no wallet has: the flood's subscriptions cost the server an index lookup each and match nothing. */
export function floodScripthash(i: number): string {
  return createHash('sha256').update(`electrum-bench abuse ${i}`).digest('hex');
}

/** One connection: opened, misused by `body`, held until the profile's time is up, closed. */
async function onOneConnection(r: AbuseRun, body: (conn: RawConnection, tally: AbuseTally) => Promise<void>): Promise<AbuseTally> {
  const tally = emptyTally();
  const conn = new RawConnection(r.target, tally, r);
  if (await conn.opened) {
    await body(conn, tally);
    await holdUntilDone(r, () => !conn.ended);
  }
  conn.close();
  return tally;
}

export function request(id: number, method: string, params: unknown[]): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, params });
}

/** Lines built between two turns of the event loop: about 5 ms of JSON and sha256. */
const LINES_PER_SLICE = 1000;

/** Lines 0..count-1 of `line`, joined by `separator` into groups of `per`, built in slices that yield (and end at a stop). */
async function linesInGroups(count: number, per: number, separator: string, line: (i: number) => string, stopped: () => boolean): Promise<string[]> {
  const groups: string[] = [];
  let group: string[] = [];
  for (let i = 0; i < count && !stopped(); i++) {
    group.push(line(i));
    if (group.length === per || i === count - 1) {
      groups.push(group.join(separator));
      group = [];
    }
    if ((i + 1) % LINES_PER_SLICE === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  return groups;
}

/** The flood's subscriptions, `chunk` lines to a text. */
const floodChunks = (params: Record<string, number>, stopped: () => boolean) =>
  linesInGroups(params.subscriptions, params.chunk, '', (i) => request(i, 'blockchain.scripthash.subscribe', [floodScripthash(i)]) + '\n', stopped);

const subscriptionFlood: AbuseProfile = {
  name: 'subscription-flood',
  describe: 'one connection subscribing to many scripthashes, pipelined',
  params: {
    subscriptions: { default: 20_000, max: 1_000_000, describe: 'scripthashes subscribed to' },
    chunk: { default: 500, max: 10_000, describe: 'subscriptions written at a time' },
  },
  connections: () => 1,
  prepare: floodChunks,
  async run(r) {
    const chunks = r.payload ?? (await floodChunks(r.params, () => isOver(r)));
    return onOneConnection(r, async (conn) => {
      for (let c = 0; c < chunks.length && !isOver(r) && !conn.ended; c++) {
        await conn.write(chunks[c], Math.min(r.params.chunk, r.params.subscriptions - c * r.params.chunk));
      }
    });
  },
};

const unterminatedLine: AbuseProfile = {
  name: 'unterminated-line',
  describe: 'one request line that never ends, growing',
  params: {
    'max-bytes': { default: 64 * 1024 * 1024, max: 1024 * 1024 * 1024, describe: 'bytes written before giving up' },
    'chunk-bytes': { default: 64 * 1024, max: 16 * 1024 * 1024, describe: 'bytes written at each step' },
    'every-ms': { default: 50, max: 60_000, describe: 'pause between steps' },
  },
  connections: () => 1,
  async run(r) {
    return onOneConnection(r, async (conn, tally) => {
      // A valid start, so a server that parses as it reads sees a request, then a string with no end.
      await conn.write('{"jsonrpc":"2.0","id":1,"method":"server.version","params":["', 1);
      const chunk = 'a'.repeat(r.params['chunk-bytes']);
      for (let sent = 0; sent < r.params['max-bytes'] && !isOver(r) && !conn.ended; sent += chunk.length) {
        await conn.write(chunk);
        await pause(r, r.params['every-ms']);
      }
    });
  },
};

/** One batch, sent `batches` times: its ids are unique within it, and each is answered before the next is sent. */
const oneBatch = async (params: Record<string, number>, stopped: () => boolean) =>
  (await linesInGroups(params.size, params.size, ',', (k) => request(k, 'blockchain.scripthash.get_balance', [floodScripthash(k)]), stopped)).map((items) => `[${items}]\n`);

const oversizedBatch: AbuseProfile = {
  name: 'oversized-batch',
  describe: 'JSON-RPC arrays of many requests on one connection',
  params: {
    size: { default: 50_000, max: 1_000_000, describe: 'requests in one batch' },
    batches: { default: 5, max: 1000, describe: 'batches sent, each after the last one was answered or refused' },
  },
  connections: () => 1,
  prepare: oneBatch,
  async run(r) {
    const [batch] = r.payload ?? (await oneBatch(r.params, () => isOver(r)));
    return onOneConnection(r, async (conn, tally) => {
      for (let b = 0; b < r.params.batches && batch !== undefined && !isOver(r) && !conn.ended; b++) {
        const before = tally.replies;
        await conn.write(batch, r.params.size);
        // A batch's answer is one line (or a refusal, or a close): the next batch waits for it.
        while (tally.replies === before && !conn.ended && !isOver(r)) await Promise.race([conn.nextReply(), sleep(200)]);
      }
    });
  },
};

const proofStorm: AbuseProfile = {
  name: 'proof-storm',
  describe: 'many connections asking for Merkle proofs and raw transactions at once',
  params: {
    connections: { default: 8, max: 1000, describe: 'connections asking at once' },
    'in-flight': { default: 50, max: 10_000, describe: 'requests pipelined on each connection' },
    requests: { default: 200_000, max: 10_000_000, describe: 'requests in all' },
  },
  connections: (p) => p.connections,
  async run(r) {
    const tally = emptyTally();
    const proofs = r.proofs.length > 0 ? r.proofs : await confirmedOf(r, tally);
    if (proofs.length === 0) return tally;
    const conns = Array.from({ length: r.params.connections }, () => new RawConnection(r.target, tally, r));
    let next = 0;
    const ask = async (conn: RawConnection) => {
      if (!(await conn.opened)) return;
      while (next < r.params.requests && !isOver(r) && !conn.ended) {
        // The proofs are found in the abuse's window, so its rounds are built there: in slices, as a
        // round of 10 000 requests is ~20 ms of the loop that times the arriving wallets.
        const from = next;
        const n = Math.min(r.params['in-flight'], r.params.requests - from);
        next += n;
        const [round] = await linesInGroups(n, n, '\n', (k) => {
          const id = from + k;
          const p = proofs[id % proofs.length];
          return id % 2 === 0 ? request(id, 'blockchain.transaction.get_merkle', [p.txid, p.height]) : request(id, 'blockchain.transaction.get', [p.txid, false]);
        }, () => isOver(r));
        if (round === undefined) break;
        const answered = conn.replies + n;
        await conn.write(round + '\n', n);
        // In rounds of in-flight requests per connection: the server's replies pace the storm.
        while (conn.replies < answered && !conn.ended && !isOver(r)) await Promise.race([conn.nextReply(), sleep(200)]);
      }
    };
    await Promise.all(conns.map(ask));
    for (const c of conns) c.close();
    return tally;
  },
};

/** Confirmed transactions from the histories of up to 100 of `r.scripthashes`: what a storm asks proofs of. */
async function confirmedOf(r: AbuseRun, tally: AbuseTally): Promise<Array<{ txid: string; height: number }>> {
  const asked = r.scripthashes.slice(0, 100);
  if (asked.length === 0) return [];
  const conn = new RawConnection(r.target, tally, r, true);
  if (!(await conn.opened)) return [];
  await conn.write(asked.map((sh, i) => request(i, 'blockchain.scripthash.get_history', [sh])).join('\n') + '\n', asked.length);
  while (conn.replies < asked.length && !conn.ended && !isOver(r)) await Promise.race([conn.nextReply(), sleep(200)]);
  conn.close();
  const found: Array<{ txid: string; height: number }> = [];
  for (const line of conn.lines!) {
    try {
      const result = (JSON.parse(line) as { result?: Array<{ tx_hash: string; height: number }> }).result;
      if (Array.isArray(result)) for (const h of result) if (h.height > 0) found.push({ txid: h.tx_hash, height: h.height });
    } catch {
      // A line that is not JSON is the server's business: the storm asks about what did parse.
    }
  }
  return found;
}

const idleConnections: AbuseProfile = {
  name: 'idle-connections',
  describe: 'many connections opened and held without a word',
  params: {
    connections: { default: 1000, max: 100_000, describe: 'connections opened and held' },
    'per-second': { default: 500, max: 100_000, describe: 'connections opened per second' },
  },
  connections: (p) => p.connections,
  async run(r) {
    const tally = emptyTally();
    const conns: RawConnection[] = [];
    const started = Date.now();
    for (let i = 0; i < r.params.connections && !isOver(r); i++) {
      conns.push(new RawConnection(r.target, tally, r));
      await pause(r, started + ((i + 1) * 1000) / r.params['per-second'] - Date.now());
    }
    // Each opening gives up at the profile's end (wire.ts): a full accept backlog holds none past it.
    await Promise.all(conns.map((c) => c.opened));
    await holdUntilDone(r);
    for (const c of conns) c.close();
    return tally;
  },
};

export const ABUSE_PROFILES: Record<string, AbuseProfile> = Object.fromEntries(
  [subscriptionFlood, unterminatedLine, oversizedBatch, proofStorm, idleConnections].map((p) => [p.name, p]),
);
