/**
 * Esplora's HTTP REST API (Blockstream's electrs `--http-addr`, as blockstream.info and
 * mempool.space serve it) asked the three Electrum questions, with answers reshaped into the
 * Electrum protocol's forms so that the size checks, --verify and every report treat both transports
 * alike. One call is one sample whatever it takes: a history is fetched page by page (the first
 * `/txs` page, then 25 confirmed transactions a page) and the sample counts its HTTP requests.
 * Its latency is the sum of its requests' round trips, each from undici's write of it to its last
 * byte's arrival on the socket: as on the Electrum path, whose latency ends at the last byte before
 * any parsing, our reading of a page (up to tens of ms for a history of megabytes) is not the
 * server's time.
 *
 * Same rules as the Electrum client: one deadline per call (all its pages), a reply that comes after
 * it is counted late, never as a sample; HTTP 400 bodies are the server's error messages ("Too many
 * history entries" is a limit), 5xx a server error, a body that is not the expected JSON a protocol
 * error, a refused or reset connection a disconnect. And as with the Electrum client's line cap, a
 * body past `maxBodyBytes` fails its call as a protocol error as soon as its bytes pass it (or its
 * Content-Length says it will), and its connection is dropped unread.
 */
import diagnostics from 'node:diagnostics_channel';
import { buildConnector, Pool, type Dispatcher } from 'undici';
import { ElectrumError, toElectrumError } from '../electrum/errors';
import { DEFAULT_MAX_LINE_BYTES, type CallOutcome } from '../electrum/client';
import { METHOD_RPC } from '../core/methods';
import { HeldBytes } from '../core/held-bytes';
import { arrivalStamper, socketArrival } from '../core/socket-arrival';
import type { RestHistoryPaging } from '../core/rest-history-paging';

/** Blockstream's Esplora's history paging (src/rest.rs), where a client is given none. */
export const ESPLORA_HISTORY_PAGING: RestHistoryPaging = { firstPage: { counts: 'confirmed', full: 25 }, chainPage: 25 };
/** Caps a history walk, so a server that never stops paging cannot keep a call running forever. */
const MAX_PAGES = 100_000;
/** How long a timed-out request may still answer (and be counted late) before its socket is dropped. */
export const LATE_GRACE_MS = 5_000;

export interface RestClientOptions {
  host: string;
  port: number;
  tls: boolean;
  tlsInsecure?: boolean;
  ca?: Buffer | string;
  timeoutMs: number;
  /** Keep-alive sockets at most. */
  maxSockets: number;
  /**
   * Requests in flight on one socket (HTTP/1.1 pipelining; 1, the default, waits for each answer
   * before the next request on that socket).
   */
  pipelining?: number;
  /** With it, CallOutcome.loopBusyMs: our event loop's busy time during the call, as the Electrum client measures it. */
  measureLoop?: boolean;
  /** The longest response body accepted (default: the Electrum client's line cap). */
  maxBodyBytes?: number;
  /** How the server pages a history (default: Blockstream's Esplora's). */
  historyPaging?: RestHistoryPaging;
}

export interface RestCallOutcome<T = unknown> extends CallOutcome<T> {
  /** HTTP requests the call took (history pages). */
  requests: number;
  /**
   * The pages' time from their hand-over to undici until it wrote them (its queue and pool), which
   * `latencyNs` leaves out: a load's latency from the intended send must contain it.
   */
  queuedNs: bigint;
}

/** REST's `:hash` is the SHA-256 of the script in plain byte order: the Electrum scripthash reversed. */
export function restScriptHash(electrumScripthash: string): string {
  return Buffer.from(electrumScripthash, 'hex').reverse().toString('hex');
}

interface TxStatus {
  confirmed: boolean;
  block_height?: number;
}

export class EsploraRestClient {
  private readonly pool: Pool;
  lateReplies = 0;
  private closed = false;
  private readonly open = new Set<RestRequest>();

  constructor(private readonly opts: RestClientOptions) {
    const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
    const connector = buildConnector(opts.tls ? { rejectUnauthorized: !opts.tlsInsecure, ...(opts.ca ? { ca: opts.ca } : {}) } : {});
    const stamp = arrivalStamper(!!opts.measureLoop);
    this.pool = new Pool(`${opts.tls ? 'https' : 'http'}://${host}:${opts.port}`, {
      connections: opts.maxSockets,
      pipelining: opts.pipelining ?? 1,
      // Our listener goes on before undici's own, so it runs first for every chunk that arrives:
      // undici reads and parses a response inside its 'readable' listener.
      connect: (options, done) =>
        connector(options, (...connected) => {
          connected[1]?.on('readable', stamp);
          done(...connected);
        }),
    });
  }

  /** An Electrum method (get_balance, get_history, listunspent) of `[scripthash]`, over REST. */
  async call(rpc: string, params: unknown[], timeoutMs = this.opts.timeoutMs): Promise<RestCallOutcome> {
    const scripthash = params[0];
    if (typeof scripthash !== 'string' || !/^[0-9a-f]{64}$/i.test(scripthash)) {
      throw new ElectrumError('protocol', `${rpc}: expected a scripthash, got ${JSON.stringify(scripthash)}`);
    }
    const h = restScriptHash(scripthash);
    const deadline = Date.now() + timeoutMs;
    const acc = { bytes: 0, requests: 0, roundTripsNs: 0n, queuedNs: 0n, busyMs: 0 };
    const get = async (path: string) => {
      const r = await this.get(path, deadline);
      acc.bytes += r.bytes;
      acc.requests++;
      acc.roundTripsNs += r.roundTripNs;
      acc.queuedNs += r.queuedNs;
      acc.busyMs += r.busyMs ?? 0;
      return r.json;
    };
    let result: unknown;
    switch (rpc) {
      case METHOD_RPC.balance:
        result = balanceOf(await get(`/scripthash/${h}`));
        break;
      case METHOD_RPC.history:
        result = await historyOf(h, this.opts.historyPaging ?? ESPLORA_HISTORY_PAGING, get);
        break;
      case METHOD_RPC.utxos:
        result = utxosOf(await get(`/scripthash/${h}/utxo`));
        break;
      default:
        throw new ElectrumError('protocol', `${rpc} has no Esplora REST equivalent here`);
    }
    const loopBusyMs = this.opts.measureLoop ? acc.busyMs : undefined;
    return { result, latencyNs: acc.roundTripsNs, queuedNs: acc.queuedNs, responseBytes: acc.bytes, loopBusyMs, requests: acc.requests };
  }

  /** The chain tip's height (`GET /blocks/tip/height`). */
  async tipHeight(timeoutMs = this.opts.timeoutMs): Promise<number> {
    const r = await this.get('/blocks/tip/height', Date.now() + timeoutMs);
    if (typeof r.json !== 'number' || !Number.isInteger(r.json)) throw new ElectrumError('protocol', `/blocks/tip/height: not a height: ${JSON.stringify(r.json)}`);
    return r.json;
  }

  /** One GET with what is left of the call's deadline; the body parsed as JSON. */
  private get(path: string, deadline: number): Promise<Page> {
    if (this.closed) return Promise.reject(new ElectrumError('disconnect', 'client closed'));
    const left = deadline - Date.now();
    if (left <= 0) return Promise.reject(new ElectrumError('timeout', `no complete answer within the call's timeout (at ${path})`));
    return new Promise((resolve, reject) => {
      const request = new RestRequest(path, this.opts.measureLoop === true, this.opts.maxBodyBytes ?? DEFAULT_MAX_LINE_BYTES, resolve, reject, (answered) => {
        this.open.delete(request);
        if (answered && request.timedOut) this.lateReplies++; // the call already failed with a timeout: counted, never a sample
      });
      this.open.add(request);
      request.timer = setTimeout(() => {
        request.fail(new ElectrumError('timeout', `no answer within the call's timeout (at ${path})`), true);
        // Left running a while so a late answer is counted; then it is aborted (its socket with it).
        setTimeout(() => request.abort(), LATE_GRACE_MS).unref();
      }, left);
      // undici's own timeouts are off: the call's deadline is the one timeout, as on the Electrum path.
      request.handedNs = process.hrtime.bigint();
      this.pool.dispatch({ path, method: 'GET', headersTimeout: 0, bodyTimeout: 0 }, request);
    });
  }

  close(): void {
    this.closed = true;
    for (const req of this.open) req.abort();
    this.open.clear();
    void this.pool.destroy().catch(() => undefined);
  }
}

/**
 * The request whose write undici is doing now. It writes a request in the same synchronous run as
 * it calls `onRequestStart`, then says so on its `bodySent` channel (its handler API does not pass
 * that on), so the request being written is always the one that started last.
 */
let beingWritten: RestRequest | null = null;
diagnostics.subscribe('undici:request:bodySent', () => {
  beingWritten?.written();
  beingWritten = null;
});

/** One answered GET. */
interface Page {
  json: unknown;
  bytes: number;
  /** From the request's write on its connection to its last byte's arrival, before the body was read. */
  roundTripNs: bigint;
  /** From its hand-over to undici to that write. */
  queuedNs: bigint;
  /** Our event loop's busy time in that span (only when measured). */
  busyMs?: number;
}

/**
 * One GET as undici's dispatcher hands it over: status, body chunks, end or error, without the
 * stream objects its request() API builds for each response (the load path sends hundreds a second).
 */
class RestRequest implements Dispatcher.DispatchHandler {
  timer: NodeJS.Timeout | undefined;
  timedOut = false;
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private abortWanted = false;
  private status = 0;
  /** The body so far. */
  private readonly body: HeldBytes;
  private sentNs = 0n;
  /** When it was handed to undici (its queue's time is carried beside the round trip). */
  handedNs = 0n;
  private activeAtSend: number | undefined;

  constructor(
    private readonly path: string,
    private readonly measureLoop: boolean,
    private readonly maxBodyBytes: number,
    private readonly resolve: (r: Page) => void,
    private readonly reject: (err: unknown) => void,
    /** The request is over: answered (a whole response), or not (an error, or aborted by us). */
    private readonly ended: (answered: boolean) => void,
  ) {
    this.body = new HeldBytes(maxBodyBytes);
  }

  /**
   * undici writes the request on its connection now: its round trip starts, as an Electrum call's
   * starts at its write. Not at the hand-over to undici: its queue and pool took ~0.1 ms of our
   * loop per request on the lab's VM, and a request queued behind another on a busy connection
   * would carry that one's whole answer time (2026-11-28 findings). A retry on another connection
   * starts it again: from the first start, the retry's time is in it, as the server caused it.
   */
  private started(): void {
    if (this.sentNs !== 0n) return;
    if (this.measureLoop) {
      this.activeAtSend = performance.eventLoopUtilization().active;
      beingWritten = this;
    }
    this.sentNs = process.hrtime.bigint();
  }

  /** undici has written the request: as on the Electrum path, only what our loop does from here on can delay reading the reply. */
  written(): void {
    this.activeAtSend = performance.eventLoopUtilization().active;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.started();
    this.controller = controller;
    if (this.abortWanted) controller.abort(new ElectrumError('disconnect', 'client closed'));
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: Record<string, string | string[] | undefined>): void {
    this.status = statusCode;
    if (Number(headers['content-length']) > this.maxBodyBytes) this.refuseBody(controller);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (controller.aborted) return;
    if (this.body.bytes + chunk.length > this.maxBodyBytes) this.refuseBody(controller);
    else this.body.append(chunk);
  }

  onResponseEnd(): void {
    const arrival = socketArrival();
    const arrivedNs = arrival?.ns ?? process.hrtime.bigint();
    const busyMs = this.activeAtSend !== undefined ? (arrival?.active ?? performance.eventLoopUtilization().active) - this.activeAtSend : undefined;
    this.ended(true);
    if (this.settled) return this.body.clear();
    const body = this.body.take();
    try {
      this.succeed({ json: parseReply(this.path, this.status, body), bytes: body.length, roundTripNs: arrivedNs - this.sentNs, queuedNs: this.sentNs - this.handedNs, busyMs });
    } catch (err) {
      this.fail(err);
    }
  }

  onResponseError(_: Dispatcher.DispatchController, err: Error): void {
    this.body.clear();
    this.ended(false);
    this.fail(toElectrumError(err));
  }

  fail(err: unknown, timedOut = false): void {
    if (this.settled) return;
    this.settled = true;
    this.timedOut = timedOut;
    clearTimeout(this.timer);
    this.reject(err);
  }

  abort(): void {
    this.abortWanted = true;
    this.controller?.abort(new ElectrumError('disconnect', 'client closed'));
  }

  /** A body past the cap: the call fails now, what came of the body is let go of, and its connection dropped unread. */
  private refuseBody(controller: Dispatcher.DispatchController): void {
    this.body.clear();
    const err = new ElectrumError('protocol', `${this.path}: response body exceeds ${this.maxBodyBytes} bytes`);
    this.fail(err);
    controller.abort(err);
  }

  private succeed(r: Page): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(r);
  }
}

function parseReply(path: string, status: number, body: Buffer): unknown {
  const text = body.toString('utf8');
  if (status >= 500) throw new ElectrumError('server-error', `HTTP ${status} at ${path}: ${text.trim().slice(0, 200)}`, status);
  // Esplora answers its errors as plain text with 400 ("Too many history entries", "Invalid hex string").
  if (status !== 200) throw new ElectrumError('server-error', `HTTP ${status}: ${text.trim().slice(0, 200)}`, status);
  try {
    return JSON.parse(text);
  } catch {
    throw new ElectrumError('protocol', `${path}: the body is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
}

function malformed(what: string, v: unknown): ElectrumError {
  return new ElectrumError('protocol', `${what}: unexpected answer ${JSON.stringify(v).slice(0, 120)}`);
}

const sats = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : NaN);

function balanceOf(v: unknown): { confirmed: number; unconfirmed: number } {
  const o = v as { chain_stats?: Record<string, unknown>; mempool_stats?: Record<string, unknown> } | null;
  const c = o?.chain_stats;
  const m = o?.mempool_stats;
  const confirmed = sats(c?.funded_txo_sum) - sats(c?.spent_txo_sum);
  const unconfirmed = sats(m?.funded_txo_sum) - sats(m?.spent_txo_sum);
  if (Number.isNaN(confirmed) || Number.isNaN(unconfirmed)) throw malformed('/scripthash/:hash', v);
  return { confirmed, unconfirmed };
}

function heightOf(status: TxStatus | undefined, what: string, v: unknown): number {
  if (!status || typeof status.confirmed !== 'boolean') throw malformed(what, v);
  if (!status.confirmed) return 0; // Electrum's mempool height (REST does not tell 0 from -1)
  if (typeof status.block_height !== 'number') throw malformed(what, v);
  return status.block_height;
}

/**
 * The whole history, in the Electrum protocol's order (confirmed oldest first, then mempool). The
 * first page holds the mempool transactions and the newest confirmed ones; each further page the
 * confirmed ones before the last seen, as the server's paging says (its profile's `restHistory`).
 * A page may come in any order (mempool's fork gathers it in parallel): the next page starts after
 * the last listed of its oldest block's transactions, and a transaction seen on an earlier page
 * is not taken twice. Where a block holds several of the address's transactions, that may re-fetch
 * some of them, never skip one: pages follow the server's scan, so all seen is always its prefix.
 */
async function historyOf(h: string, paging: RestHistoryPaging, get: (path: string) => Promise<unknown>): Promise<Array<{ tx_hash: string; height: number }>> {
  const mempool = new Map<string, number>();
  const confirmed = new Map<string, number>();
  const take = (page: unknown, what: string): { entries: number; chain: number; cursor: string | undefined } => {
    if (!Array.isArray(page)) throw malformed(what, page);
    let chain = 0;
    let cursor: { txid: string; height: number } | undefined;
    for (const tx of page as Array<{ txid?: unknown; status?: TxStatus }>) {
      if (typeof tx?.txid !== 'string') throw malformed(what, tx);
      const height = heightOf(tx.status, what, tx);
      if (height > 0) {
        confirmed.set(tx.txid, height);
        chain++;
        if (!cursor || height <= cursor.height) cursor = { txid: tx.txid, height };
      } else mempool.set(tx.txid, height);
    }
    return { entries: page.length, chain, cursor: cursor?.txid };
  };
  const first = take(await get(`/scripthash/${h}/txs`), '/scripthash/:hash/txs');
  let more = (paging.firstPage.counts === 'confirmed' ? first.chain : first.entries) >= paging.firstPage.full;
  // A first page full of mempool transactions has no confirmed one to page on from (mempool's
  // fork fills it with the mempool's first, src/rest.rs): the confirmed ones start at /txs/chain.
  // After it, a page with no confirmed transaction is not full, so the walk ends there.
  for (let pages = 1, cursor = first.cursor; more; pages++) {
    if (pages >= MAX_PAGES) throw new ElectrumError('protocol', `/scripthash/:hash/txs/chain: still paging after ${MAX_PAGES} pages`);
    const page = take(await get(`/scripthash/${h}/txs/chain${cursor === undefined ? '' : `/${cursor}`}`), '/scripthash/:hash/txs/chain');
    more = page.chain >= paging.chainPage;
    cursor = page.cursor;
  }
  // Oldest first; a block's transactions keep the order they were first listed in, reversed.
  const chain = [...confirmed].reverse().map(([tx_hash, height]) => ({ tx_hash, height }));
  chain.sort((a, b) => a.height - b.height);
  return [...chain, ...[...mempool].map(([tx_hash, height]) => ({ tx_hash, height }))];
}

function utxosOf(v: unknown): Array<{ tx_hash: string; tx_pos: number; value: number; height: number }> {
  if (!Array.isArray(v)) throw malformed('/scripthash/:hash/utxo', v);
  return v.map((u: { txid?: unknown; vout?: unknown; value?: unknown; status?: TxStatus }) => {
    if (typeof u?.txid !== 'string' || typeof u.vout !== 'number' || typeof u.value !== 'number') throw malformed('/scripthash/:hash/utxo', u);
    return { tx_hash: u.txid, tx_pos: u.vout, value: u.value, height: heightOf(u.status, '/scripthash/:hash/utxo', u) };
  });
}
