/**
 * One start for all shards, one place for their results: shard 1 of a coordinated test
 * (`load --shard 1/N --coordinator HOST:PORT`) listens, the other shards register with it, and
 * before each server it hands all of them one start time; when they are done they send it their
 * run databases, which it merges. Where k6-operator releases its runners one HTTP call after
 * another (the start skew growing with N) and leaves the metrics to each runner, here every shard
 * waits for the same instant on its own clock, corrected by the offset to the coordinator's clock
 * measured when it registered.
 *
 * The wire is newline-delimited JSON over TCP, one connection per shard for the whole test: the
 * coordinator notices a shard that goes away the moment its connection closes.
 */
import net from 'node:net';
import readline from 'node:readline';
import { UserError } from '../core/user-error';
import { formatShard, type Shard } from '../core/shard';

/** How far ahead of "everyone is ready" the start is set: the message must reach every shard first. */
const START_LEAD_MS = 250;
/** Round trips to the coordinator when registering; the fastest one gives the clock offset. */
const CLOCK_PINGS = 8;
const RETRY_MS = 200;

export type Message =
  | { type: 'hello'; shard: string; test: string; identity?: unknown }
  | { type: 'welcome' }
  | { type: 'ping'; id: number }
  | { type: 'pong'; id: number; nowMs: number }
  | { type: 'ready'; server: string }
  | { type: 'start'; server: string; atMs: number }
  | { type: 'started'; server: string; atMs: number }
  | { type: 'failed'; reason: string }
  | { type: 'result'; database: string }
  | { type: 'received' }
  | { type: 'stop' }
  | { type: 'abort'; reason: string }
  // A step every shard takes together (a wallet load's blocks): each shard says it is `at` it,
  // with what it has to tell; the coordinator, once all are, says what comes next (`told`).
  | { type: 'at'; name: string; data?: unknown }
  | { type: 'told'; name: string; data?: unknown };

/** What a shard says of its test when it registers (src/runs/test-identity.ts makes it). */
export interface TestTag {
  /** Equal for every shard of one test. */
  id: string;
  /** What the id is made of, sent along so that a refusal can say what differs. */
  identity?: unknown;
  /** The coordinator's words for shard `shard`, which sent `identity`, running another test. */
  differs?(shard: string, identity: unknown): string | undefined;
}

export interface CoordinatorAddress {
  host: string;
  port: number;
}

export function parseCoordinator(text: string): CoordinatorAddress {
  const m = /^\[?([^\]\s]+?)\]?:(\d+)$/.exec(text.trim());
  const port = m ? Number(m[2]) : NaN;
  if (!m || !Number.isInteger(port) || port < 1 || port > 65535) throw new UserError(`--coordinator: expected HOST:PORT, got ${JSON.stringify(text)}`);
  return { host: m[1], port };
}

const now = (): number => performance.timeOrigin + performance.now();
/** A deadline as the user gave it: tenths below 10 s (a 0.4 s deadline is not "0 s"). */
const seconds = (ms: number): string => `${ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000)} s`;

/** A JSON-lines connection: `send` writes one message, `on` hears each one, `closed` fires once. */
class Channel {
  private readonly lines: readline.Interface;
  private listeners: Array<(m: Message) => void> = [];
  private closeListeners: Array<() => void> = [];
  isClosed = false;

  constructor(readonly socket: net.Socket) {
    socket.setNoDelay(true);
    this.lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
    this.lines.on('line', (line) => {
      let m: Message;
      try {
        m = JSON.parse(line) as Message;
      } catch {
        return; // not ours: ignored (the hello check refuses strangers)
      }
      if (typeof m !== 'object' || m === null || typeof m.type !== 'string') return;
      for (const l of [...this.listeners]) l(m);
    });
    const closed = () => {
      if (this.isClosed) return;
      this.isClosed = true;
      for (const l of this.closeListeners) l();
    };
    socket.on('close', closed);
    socket.on('error', closed);
  }

  send(m: Message): void {
    if (!this.isClosed) this.socket.write(JSON.stringify(m) + '\n');
  }

  on(listener: (m: Message) => void): void {
    this.listeners.push(listener);
  }

  /** Calls `listener` once the connection closes (at once if it has); returns what unhears it. */
  onClose(listener: () => void): () => void {
    if (this.isClosed) listener();
    else this.closeListeners.push(listener);
    return () => {
      this.closeListeners = this.closeListeners.filter((l) => l !== listener);
    };
  }

  /** The next message of `type`; rejects when the connection closes first or after `timeoutMs`. */
  next<T extends Message['type']>(type: T, timeoutMs: number, what: string): Promise<Extract<Message, { type: T }>> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(new Error(`no ${what} within ${seconds(timeoutMs)}`)), timeoutMs);
      const listener = (m: Message) => {
        if (m.type === type) done(undefined, m as Extract<Message, { type: T }>);
        else if (m.type === 'abort') done(new CoordinatorAbort(m.reason));
      };
      let unhearClose = (): void => {};
      const done = (err?: Error, m?: Extract<Message, { type: T }>) => {
        clearTimeout(timer);
        this.listeners = this.listeners.filter((l) => l !== listener);
        unhearClose();
        if (err) reject(err);
        else resolve(m!);
      };
      this.listeners.push(listener);
      unhearClose = this.onClose(() => done(new Error('the connection closed')));
    });
  }

  close(): void {
    this.lines.close();
    this.socket.end();
    this.socket.destroy();
  }
}

/** The coordinator told this shard the test is off. */
export class CoordinatorAbort extends Error {}

/** A wait for a step the shards take together ended because this side was stopped. */
export class StepStopped extends Error {
  constructor() {
    super('stopped while the shards met');
  }
}

/** What the load command needs of either side: a start per server and a report of the actual start. */
export interface TestLink {
  /** The epoch ms (this process's clock) at which every shard starts `server`'s schedule. */
  rendezvous(server: string): Promise<number>;
  /** This shard's schedule for `server` actually started at `epochMs` (its own clock). */
  started(server: string, epochMs: number): void;
  close(): void;
}

interface Member {
  shard: Shard;
  channel: Channel;
  ready: Set<string>;
  /** The steps it is at, with what it told of each. */
  at: Map<string, unknown>;
  /** Actual starts, on the coordinator's clock. */
  starts: Map<string, number>;
  result?: Buffer;
  failure?: string;
}

/** Shard 1's side: accepts the other shards, starts them together, takes their results. */
export class Coordinator implements TestLink {
  private readonly members = new Map<number, Member>();
  /** Every connection, registered or not: all closed at the end. */
  private readonly accepted = new Set<Channel>();
  private readonly ownStarts = new Map<string, number>();
  private readonly waiting: Array<() => void> = [];
  private failure: string | undefined;
  /** This side was stopped: a wait for the other shards ends. */
  private released = false;
  private failureListener: ((reason: string) => void) | undefined;
  private server!: net.Server;

  private constructor(
    private readonly shard: Shard,
    private readonly test: TestTag,
  ) {}

  /**
   * Listens on `address` (on every interface when its host is a name, as a pod's DNS name is
   * only resolvable once the pod runs; on the address itself when it is one).
   */
  static async listen(address: CoordinatorAddress, shard: Shard, test: TestTag): Promise<Coordinator> {
    const c = new Coordinator(shard, test);
    c.server = net.createServer((socket) => {
      const channel = new Channel(socket);
      c.accepted.add(channel);
      channel.onClose(() => c.accepted.delete(channel));
      c.accept(channel);
    });
    await new Promise<void>((resolve, reject) => {
      c.server.once('error', (err: NodeJS.ErrnoException) =>
        reject(new UserError(`--coordinator ${address.host}:${address.port}: cannot listen: ${err.code ?? err.message}`)),
      );
      c.server.listen({ port: address.port, host: net.isIP(address.host) ? address.host : undefined }, () => resolve());
    });
    return c;
  }

  /** The port listened on (the one asked for, or the kernel's choice for 0). */
  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  private accept(channel: Channel): void {
    channel.on((m) => {
      if (m.type === 'hello') this.hello(channel, m);
      if (m.type === 'ping') channel.send({ type: 'pong', id: m.id, nowMs: now() });
    });
  }

  private hello(channel: Channel, m: Extract<Message, { type: 'hello' }>): void {
    // Not a shard of ours at all (a port scan, another program): closed, the test unharmed.
    if (typeof m.shard !== 'string' || typeof m.test !== 'string') return channel.close();
    const [index, count] = m.shard.split('/').map(Number);
    // A shard of another test, or a second shard I, means this test cannot be whole: it is off.
    const refuse = (reason: string) => {
      channel.send({ type: 'abort', reason });
      channel.close();
      this.fail(`--coordinator: ${reason}`);
    };
    if (m.test !== this.test.id) return refuse(this.test.differs?.(m.shard, m.identity) ?? `shard ${m.shard} runs a different test than the coordinator (its load options differ)`);
    if (count !== this.shard.count || !(index >= 2 && index <= count)) return refuse(`shard ${m.shard} is not one of shards 2..${this.shard.count} of ${this.shard.count}`);
    if (this.members.has(index)) return refuse(`shard ${m.shard} is already registered`);
    const member: Member = { shard: { index, count }, channel, ready: new Set(), at: new Map(), starts: new Map() };
    this.members.set(index, member);
    channel.on((msg) => {
      if (msg.type === 'ready') member.ready.add(msg.server);
      else if (msg.type === 'at' && typeof msg.name === 'string') member.at.set(msg.name, msg.data);
      else if (msg.type === 'started') member.starts.set(msg.server, msg.atMs);
      else if (msg.type === 'result') {
        member.result = Buffer.from(msg.database, 'base64');
        channel.send({ type: 'received' });
      } else if (msg.type === 'failed') member.failure = msg.reason;
      else return;
      this.wake();
    });
    channel.onClose(() => {
      if (!member.result) this.fail(member.failure ? `shard ${m.shard} failed: ${member.failure}` : `shard ${m.shard} went away (its connection closed) before sending its results`);
    });
    channel.send({ type: 'welcome' });
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiting.splice(0)) w();
  }

  private fail(reason: string): void {
    if (this.failure === undefined) {
      this.failure = reason;
      this.failureListener?.(reason);
    }
    this.wake();
  }

  /** Calls `listener` once when a shard fails or goes away: the test is off. */
  onFailure(listener: (reason: string) => void): void {
    this.failureListener = listener;
  }

  /** Resolves once `ready()` holds; rejects with the test's failure, or after `timeoutMs`. */
  private until(ready: () => boolean, timeoutMs: number, late: () => string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new UserError(late())), timeoutMs);
      const check = () => {
        if (this.failure) {
          clearTimeout(timer);
          reject(new UserError(this.failure));
        } else if (this.released) {
          clearTimeout(timer);
          reject(new StepStopped());
        } else if (ready()) {
          clearTimeout(timer);
          resolve();
        } else this.waiting.push(check);
      };
      check();
    });
  }

  private missing(has: (m: Member) => boolean): string {
    const out: string[] = [];
    for (let i = 2; i <= this.shard.count; i++) {
      const m = this.members.get(i);
      if (!m || !has(m)) out.push(`${i}/${this.shard.count}`);
    }
    return `shard${out.length > 1 ? 's' : ''} ${out.join(', ')}`;
  }

  /**
   * Every other shard registered within `timeoutMs`, or a UserError naming those that did not and
   * the --ready-timeout they had (`readyTimeoutMs`, of which `timeoutMs` may be what is left).
   */
  awaitShards(timeoutMs: number, readyTimeoutMs = timeoutMs): Promise<void> {
    return this.until(
      () => this.members.size === this.shard.count - 1,
      timeoutMs,
      () => `--coordinator: ${this.missing(() => true)} did not register within ${seconds(readyTimeoutMs)} (--ready-timeout); nothing was run`,
    );
  }

  async rendezvous(server: string): Promise<number> {
    await this.until(
      () => [...this.members.values()].every((m) => m.ready.has(server)),
      // Each shard opens its connections before it is ready: as long as a server's setup may take.
      10 * 60_000,
      () => `--coordinator: ${this.missing((m) => m.ready.has(server))} never got ready for ${server}`,
    );
    // Half past a whole second: the merge adds the shards' intervals by the epoch second they
    // start in, and half a second either side absorbs any skew and clock offset left.
    const atMs = Math.ceil((now() + START_LEAD_MS) / 1000) * 1000 + 500;
    for (const m of this.members.values()) m.channel.send({ type: 'start', server, atMs });
    return atMs;
  }

  started(server: string, epochMs: number): void {
    this.ownStarts.set(server, epochMs);
  }

  /** What every other shard told of step `name`, by shard index, once all of them are at it. */
  async gather(name: string, timeoutMs: number): Promise<Map<number, unknown>> {
    await this.until(
      () => [...this.members.values()].every((m) => m.at.has(name)),
      timeoutMs,
      () => `--coordinator: ${this.missing((m) => m.at.has(name))} did not reach ${name} within ${seconds(timeoutMs)}`,
    );
    return new Map([...this.members].map(([i, m]) => [i, m.at.get(name)]));
  }

  /** Tells every other shard what comes of step `name`. */
  tell(name: string, data?: unknown): void {
    for (const m of this.members.values()) m.channel.send({ type: 'told', name, data });
  }

  /** This side stopped: waits for the other shards end (StepStopped) rather than keep the stop waiting. */
  release(): void {
    this.released = true;
    this.wake();
  }

  /** The other shards' run databases, by shard index, once all have sent theirs. */
  async results(timeoutMs: number): Promise<Map<number, Buffer>> {
    await this.until(
      () => [...this.members.values()].every((m) => m.result),
      timeoutMs,
      () => `--coordinator: ${this.missing((m) => m.result !== undefined)} sent no results within ${seconds(timeoutMs)} of the coordinator's own end`,
    );
    return new Map([...this.members].map(([i, m]) => [i, m.result!]));
  }

  /** Per server: the spread of the shards' actual starts (max − min, ms) and how many reported one. */
  startSkew(): Record<string, { skewMs: number; shards: number }> {
    const out: Record<string, { skewMs: number; shards: number }> = {};
    for (const [server, own] of this.ownStarts) {
      const starts = [own, ...[...this.members.values()].map((m) => m.starts.get(server)).filter((s): s is number => s !== undefined)];
      out[server] = { skewMs: Math.round((Math.max(...starts) - Math.min(...starts)) * 1000) / 1000, shards: starts.length };
    }
    return out;
  }

  /** The coordinator was stopped (Ctrl-C): every shard stops too, keeps what it measured and sends it. */
  stopAll(): void {
    for (const m of this.members.values()) m.channel.send({ type: 'stop' });
  }

  /** Tells every shard still connected that the test is off (they stop and exit with `reason`). */
  abort(reason: string): void {
    for (const m of this.members.values()) m.channel.send({ type: 'abort', reason });
  }

  close(): void {
    for (const channel of this.accepted) channel.close();
    this.server.close();
  }
}

/** Shards 2..N: registers with the coordinator, takes its start times, sends it the results. */
export class ShardLink implements TestLink {
  private offsetMs = 0;
  private aborted: ((reason: string) => void) | undefined;
  private stopped: (() => void) | undefined;
  /** Kept until a listener is there: a call-off or stop may come while the shard still checks its servers. */
  private abortReason: string | undefined;
  private stopAsked = false;
  private finishing = false;
  /** What the coordinator told of each step, kept until asked for: it may come before the shard asks. */
  private readonly told = new Map<string, unknown>();
  /** Waits for a step's news: each ends when it comes, or when the test is stopped or called off. */
  private readonly hearing = new Set<() => void>();

  private constructor(private readonly channel: Channel) {
    channel.on((m) => {
      if (m.type === 'abort') this.callOff(m.reason);
      if (m.type === 'stop') {
        this.stopAsked = true;
        this.stopped?.();
      }
      if (m.type === 'told' && typeof m.name === 'string') this.told.set(m.name, m.data);
      if (m.type === 'stop' || m.type === 'abort' || m.type === 'told') for (const h of [...this.hearing]) h();
    });
    channel.onClose(() => this.callOff('the coordinator went away (its connection closed)'));
  }

  private callOff(reason: string): void {
    if (this.finishing || this.abortReason !== undefined) return;
    this.abortReason = reason;
    this.aborted?.(reason);
    for (const h of [...this.hearing]) h();
  }

  /** This shard is at step `name`, with what it has to tell the coordinator of it. */
  arrive(name: string, data?: unknown): void {
    this.channel.send({ type: 'at', name, data });
  }

  /**
   * What the coordinator tells of step `name`, once all shards are at it. Rejects with StepStopped
   * when the test is stopped first, with a UserError when it is called off or `timeoutMs` passes.
   */
  hear(name: string, timeoutMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (this.told.has(name)) done(() => resolve(this.told.get(name)));
        else if (this.stopAsked) done(() => reject(new StepStopped()));
        else if (this.abortReason !== undefined) done(() => reject(new UserError(`--coordinator: ${this.abortReason}`)));
      };
      const timer = setTimeout(() => done(() => reject(new UserError(`--coordinator: no word of ${name} within ${seconds(timeoutMs)}`))), timeoutMs);
      const done = (settle: () => void) => {
        clearTimeout(timer);
        this.hearing.delete(check);
        settle();
      };
      this.hearing.add(check);
      check();
    });
  }

  /** This side stopped on its own (Ctrl-C at this shard): a wait for the coordinator's news ends. */
  release(): void {
    this.stopAsked = true;
    for (const h of [...this.hearing]) h();
  }

  /**
   * Connects (retrying until `timeoutMs`: the coordinator's pod may start after this one),
   * registers and measures the clock offset to the coordinator.
   */
  static async connect(address: CoordinatorAddress, shard: Shard, test: TestTag, timeoutMs: number): Promise<ShardLink> {
    const deadline = Date.now() + timeoutMs;
    let lastError = '';
    for (;;) {
      try {
        const socket = await new Promise<net.Socket>((resolve, reject) => {
          const s = net.connect({ host: address.host, port: address.port });
          s.once('connect', () => resolve(s));
          s.once('error', reject);
          s.setTimeout(Math.max(100, deadline - Date.now()), () => s.destroy(new Error('connect timed out')));
        });
        socket.setTimeout(0);
        const channel = new Channel(socket);
        const link = new ShardLink(channel);
        channel.send({ type: 'hello', shard: formatShard(shard), test: test.id, identity: test.identity });
        const wait = Math.max(1000, deadline - Date.now());
        try {
          await channel.next('welcome', wait, 'welcome');
        } catch (err) {
          channel.close();
          if (err instanceof CoordinatorAbort) throw new UserError(`--coordinator ${address.host}:${address.port} refused shard ${formatShard(shard)}: ${err.message}`);
          throw err;
        }
        try {
          await link.measureOffset();
        } catch (err) {
          // Registered already: a retry would be a second shard I. The test cannot go on.
          channel.close();
          throw new UserError(`--coordinator ${address.host}:${address.port}: shard ${formatShard(shard)} registered but could not read the coordinator's clock: ${(err as Error).message}`);
        }
        return link;
      } catch (err) {
        if (err instanceof UserError) throw err;
        lastError = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      }
      if (Date.now() + RETRY_MS > deadline) {
        throw new UserError(`--coordinator ${address.host}:${address.port}: cannot register shard ${formatShard(shard)} within ${seconds(timeoutMs)} (--ready-timeout): ${lastError}`);
      }
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }

  /** Cristian's method: the round trip with the least delay bounds the offset's error best. */
  private async measureOffset(): Promise<void> {
    let best = { rtt: Infinity, offset: 0 };
    for (let id = 0; id < CLOCK_PINGS; id++) {
      const sent = now();
      this.channel.send({ type: 'ping', id });
      const pong = await this.channel.next('pong', 5000, 'clock reply');
      const back = now();
      if (back - sent < best.rtt) best = { rtt: back - sent, offset: pong.nowMs - (sent + back) / 2 };
    }
    this.offsetMs = best.offset;
  }

  /** An epoch ms instant on the coordinator's clock, as this machine's clock reads it. */
  localEpochMs(coordinatorMs: number): number {
    return coordinatorMs - this.offsetMs;
  }

  /** Calls `listener` once if the coordinator calls the test off or goes away. */
  onAbort(listener: (reason: string) => void): void {
    this.aborted = listener;
    if (this.abortReason !== undefined) listener(this.abortReason);
  }

  /** Calls `listener` when the coordinator was stopped: this shard stops as if Ctrl-C'd. */
  onStop(listener: () => void): void {
    this.stopped = listener;
    if (this.stopAsked) listener();
  }

  async rendezvous(server: string): Promise<number> {
    if (this.abortReason !== undefined) throw new UserError(`--coordinator: no start for ${server}: ${this.abortReason}`);
    this.channel.send({ type: 'ready', server });
    try {
      const start = await this.channel.next('start', 10 * 60_000, `start for ${server}`);
      return start.atMs - this.offsetMs;
    } catch (err) {
      throw new UserError(`--coordinator: no start for ${server}: ${this.abortReason ?? (err as Error).message}`);
    }
  }

  started(server: string, epochMs: number): void {
    this.channel.send({ type: 'started', server, atMs: epochMs + this.offsetMs });
  }

  /** Something this shard could not do before or during the run: the coordinator fails the test with it. */
  failed(reason: string): void {
    this.channel.send({ type: 'failed', reason });
  }

  async sendResult(database: Buffer, timeoutMs: number): Promise<void> {
    this.finishing = true; // from here on, the coordinator closing is the end, not an abort
    this.channel.send({ type: 'result', database: database.toString('base64') });
    await this.channel.next('received', timeoutMs, 'receipt of the results');
  }

  close(): void {
    this.channel.close();
  }
}
