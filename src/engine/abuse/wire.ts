/**
 * The raw connections an abuse profile misbehaves on: bytes written as the profile chooses, not
 * as the protocol's client would (src/electrum/ frames and paces; an abuser must not). Each
 * connection counts what it sent, the replies it heard and how it ended.
 */
import net from 'node:net';
import tls from 'node:tls';

export interface AbuseTarget {
  host: string;
  port: number;
  tls: boolean;
}

/** What one profile's connections did, summed: the abuse's own side of the collateral. */
export interface AbuseTally {
  connections: number;
  /** Connections the server refused or that never opened. */
  refused: number;
  /** Connections the server closed or reset while the abuse held them. */
  closedByServer: number;
  bytesSent: number;
  requestsSent: number;
  /** Newline-ended lines the server sent back, and those that were JSON-RPC errors. */
  replies: number;
  errorReplies: number;
}

/** When a profile's connections must let go: its time is up, or the run was stopped. */
export interface AbuseEnd {
  /** Epoch ms. */
  untilMs: number;
  stopped: () => boolean;
}

export function isOver(end: AbuseEnd): boolean {
  return end.stopped() || Date.now() >= end.untilMs;
}

/** Often enough to end within 2 s of a stop, the run's promise (a stop is a flag, not an event). */
const END_CHECK_MS = 200;

/**
 * `p`, or `atEnd` once the abuse has ended first: a server that stops reading but never closes,
 * or an accept backlog that never takes a connection, would otherwise hold the wait for good.
 */
async function untilEnd<T>(end: AbuseEnd, p: Promise<T>, atEnd: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const ended = new Promise<T>((resolve) => {
    const check = () => {
      if (isOver(end)) resolve(atEnd);
      else timer = setTimeout(check, Math.min(END_CHECK_MS, end.untilMs - Date.now()));
    };
    check();
  });
  try {
    return await Promise.race([p, ended]);
  } finally {
    clearTimeout(timer);
  }
}

export function emptyTally(): AbuseTally {
  return { connections: 0, refused: 0, closedByServer: 0, bytesSent: 0, requestsSent: 0, replies: 0, errorReplies: 0 };
}

/**
 * One raw connection: opened, written to, closed by us or by the server (counted in `tally`). Its
 * opening and its writes wait no longer than the abuse lasts: at its end the socket is destroyed.
 */
export class RawConnection {
  private readonly socket: net.Socket;
  private buffered = '';
  private closing = false;
  private lineWaiters: Array<() => void> = [];
  readonly opened: Promise<boolean>;
  ended = false;
  /** Reply lines heard on this connection. */
  replies = 0;
  /** The reply lines themselves, kept only when asked (a profile that reads what it was told). */
  readonly lines: string[] | undefined;

  constructor(target: AbuseTarget, private readonly tally: AbuseTally, private readonly end: AbuseEnd, keepLines = false) {
    this.lines = keepLines ? [] : undefined;
    this.socket = target.tls ? tls.connect({ host: target.host, port: target.port, rejectUnauthorized: false }) : net.connect({ host: target.host, port: target.port });
    this.socket.setNoDelay(true);
    const connecting = new Promise<boolean>((resolve) => {
      this.socket.once(target.tls ? 'secureConnect' : 'connect', () => {
        tally.connections++;
        resolve(true);
      });
      this.socket.once('error', () => resolve(false));
      this.socket.once('close', () => resolve(false));
    });
    this.opened = this.bounded(connecting, false);
    this.socket.on('error', () => undefined);
    this.socket.on('close', () => {
      if (!this.ended && !this.closing) this.opened.then((ok) => (ok ? tally.closedByServer++ : tally.refused++));
      this.ended = true;
      this.wake();
    });
    this.socket.on('data', (chunk: Buffer) => this.heard(chunk));
  }

  private heard(chunk: Buffer): void {
    // Only the line count and whether each is an error matter: a partial line waits for its end.
    this.buffered += chunk.toString('latin1');
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      this.tally.replies++;
      this.replies++;
      this.lines?.push(line);
      if (line.includes('"error":{') || line.includes('"error": {')) this.tally.errorReplies++;
    }
    if (this.buffered.length > 1 << 20) this.buffered = this.buffered.slice(-1024);
    this.wake();
  }

  private wake(): void {
    const waiters = this.lineWaiters;
    this.lineWaiters = [];
    for (const w of waiters) w();
  }

  /** Writes `data`, resolving when the socket takes more (backpressure) or at once, or at the abuse's end. */
  write(data: string, requests = 0): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.tally.bytesSent += Buffer.byteLength(data);
    this.tally.requestsSent += requests;
    if (this.socket.write(data)) return Promise.resolve();
    const drained = new Promise<void>((resolve) => {
      const done = () => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.once('drain', done);
      this.socket.once('close', done);
    });
    return this.bounded(drained, undefined);
  }

  /** `p`, unless the abuse ends first: then this connection is destroyed and `atEnd` given. */
  private async bounded<T>(p: Promise<T>, atEnd: T): Promise<T> {
    const endedFirst = Symbol('ended');
    const got = await untilEnd<T | typeof endedFirst>(this.end, p, endedFirst);
    if (got !== endedFirst) return got;
    this.close();
    return atEnd;
  }

  /** Resolves at the next reply line or the connection's end, whichever is first. */
  nextReply(): Promise<void> {
    if (this.ended) return Promise.resolve();
    return new Promise((resolve) => this.lineWaiters.push(resolve));
  }

  close(): void {
    this.closing = true;
    this.socket.destroy();
    this.wake();
  }
}
