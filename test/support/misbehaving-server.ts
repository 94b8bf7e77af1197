/**
 * A deliberately misbehaving Electrum-protocol server on 127.0.0.1 for the client's fault tests.
 * It negotiates like a real server, then does whatever the called method's name asks:
 *   test.echo(x...)       → result: the params
 *   test.stall            → never answers
 *   test.late(ms, x)      → answers x after ms
 *   test.garbage          → a line that is not JSON
 *   test.wrong_id         → an answer with an id nobody asked for
 *   test.oversized(bytes) → one answer line of about that many bytes, written as the client takes it
 *   test.cut              → half an answer, then closes the connection
 *   test.error(code, msg) → a JSON-RPC error object
 * With `silent`, it accepts connections and never answers anything (not even server.version): a
 * server that hangs; with `hangAfterHandshake`, it negotiates and then never answers a scripthash
 * call (with `hangHeaders`, nor a headers subscription: a wallet sync gets no answer at all); with `answerFirst: N`, it answers the first N scripthash calls (as it otherwise would)
 * and then never answers one again: a server that stopped answering mid-run; with
 * `answerConnections: N`, it answers them on the first N connections that ask one and on no later
 * one (a server that stops after N wallet syncs, however their calls interleave). With
 * `port`, it listens on that port (a server "restarted" after an outage). With `delayMs`, every
 * answer to a scripthash call comes that late (a slow server), and the time-weighted average of
 * requests in flight is tracked, so tests can see the concurrency a client really applied. Any
 * method it does not know (e.g. the scripthash methods) is answered with a JSON-RPC error; with
 * `emptyAnswers`, the scripthash methods answer as for an address that never received anything
 * ([] and a zero balance), the way Fulcrum answers above its max_history.
 * With `noNewline`, its answers (server.version's too) never end their line; with `dripMs`, each
 * answer is written one byte every that many ms (a server, or a middlebox, that trickles).
 * With `neverReads`, it accepts connections and never reads from them, nor closes them: a server
 * whose reading stopped, so what is written to it backs up until the writer's socket takes no more.
 * With `genesisHeader`, blockchain.block.header answers that header for block 0 (the chain it
 * claims to be on). With `oversizedAnswers: N`, every scripthash call is answered as
 * test.oversized(N) is. With `goDownAfter: N`, it goes down after answering N scripthash calls:
 * it stops listening and ends every connection (a server that crashed).
 * It is not a fake of a real server: no test uses it for anything a real server answers.
 */
import net from 'node:net';
import { heldTimers } from './held-timers';

export interface Misbehaving {
  port: number;
  pings: number;
  connections: number;
  /** Requests answered after the handshake. */
  answered: number;
  /** Time-weighted mean of requests in flight, from the first request to the last answer. */
  meanInFlight(): number;
  close(): Promise<void>;
}

export interface MisbehavingOptions {
  port?: number;
  silent?: boolean;
  /** Accept and never read (nor close): writes to it back up. */
  neverReads?: boolean;
  hangAfterHandshake?: boolean;
  /** Never answer blockchain.headers.subscribe (a wallet's first question). */
  hangHeaders?: boolean;
  /** Answer this many scripthash calls (counted over every connection, a batch's each), then never answer another. */
  answerFirst?: number;
  /**
   * Answer scripthash calls on the first N connections that ask one, never on a later one: a server
   * that stops answering after N wallet syncs (each its own connection), whatever their calls interleave.
   */
  answerConnections?: number;
  delayMs?: number;
  software?: string;
  /** Answer methods it does not know with `null` (a null responder) instead of a JSON-RPC error. */
  nullResults?: boolean;
  /** Answer get_history and listunspent with [] and get_balance with zeros: nothing, no error. */
  emptyAnswers?: boolean;
  /** Leave the first N JSON batches (counted over every connection) unanswered, and answer the rest. */
  ignoreFirstBatches?: number;
  /** Close the connection on a method it does not know, as Esplora's electrs does (e.g. server.features). */
  closeOnUnknown?: boolean;
  /** Hold every answer due inside this window (ms after start) until the window ends: a stall. */
  stall?: { atMs: number; forMs: number };
  /** Answers without their end of line. */
  noNewline?: boolean;
  /** Answers written one byte at a time, this many ms apart. */
  dripMs?: number;
  /** Block 0's header (hex) for blockchain.block.header. */
  genesisHeader?: string;
  /** Answer every scripthash call with one line of about this many bytes. */
  oversizedAnswers?: number;
  /** After answering this many scripthash calls (answered at once: not with delayMs or a stall), go down: stop listening (later connects are refused) and end every connection. */
  goDownAfter?: number;
}

const FILLER = Buffer.alloc(1024 * 1024, 'x');

interface Req {
  id: number;
  method: string;
  params: unknown[];
}

export async function startMisbehavingServer(opts: MisbehavingOptions = {}): Promise<Misbehaving> {
  const sockets = new Set<net.Socket>();
  // Answers held back (delays, stalls): cleared on close, so a closed server keeps no test process alive.
  const held = heldTimers();
  const later = held.later;
  const state = { pings: 0, connections: 0, answered: 0, scripthashCalls: 0, askingConnections: 0, batches: 0 };
  // In-flight accounting: area under the in-flight curve, integrated at every change.
  const flight = { now: 0, area: 0, since: 0, first: 0, last: 0 };
  const clock = () => Number(process.hrtime.bigint()) / 1e6;
  const startedAt = clock();
  const stallRemainingMs = () => {
    if (!opts.stall) return 0;
    const t = clock() - startedAt;
    return t >= opts.stall.atMs && t < opts.stall.atMs + opts.stall.forMs ? opts.stall.atMs + opts.stall.forMs - t : 0;
  };
  const inFlight = (delta: number) => {
    const t = clock();
    if (flight.first === 0) flight.first = t;
    else flight.area += flight.now * (t - flight.since);
    flight.since = t;
    flight.now += delta;
    flight.last = t;
  };
  const server = net.createServer((socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (opts.neverReads) {
      socket.pause();
      return;
    }
    let buffered = '';
    /** This connection's place among those that asked a scripthash call (0: none asked yet). */
    let asker = 0;
    socket.on('data', (chunk) => {
      if (opts.silent) return;
      buffered += chunk.toString('utf8');
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        const msg = JSON.parse(line) as Req | Req[];
        const scripthashCall = !Array.isArray(msg) && msg.method.startsWith('blockchain.scripthash.');
        // Past its first N calls, or on a connection past the first N that asked one: never answered.
        if (scripthashCall && opts.answerFirst !== undefined && state.scripthashCalls++ >= opts.answerFirst) continue;
        // A batch of scripthash calls counts as that many; one that starts past the first N goes unanswered whole.
        const inBatch = Array.isArray(msg) ? msg.filter((r) => r.method.startsWith('blockchain.scripthash.')).length : 0;
        if (inBatch > 0 && opts.answerFirst !== undefined && (state.scripthashCalls += inBatch) - inBatch >= opts.answerFirst) continue;
        if (scripthashCall && opts.answerConnections !== undefined && (asker ||= ++state.askingConnections) > opts.answerConnections) continue;
        if (Array.isArray(msg) && state.batches++ < (opts.ignoreFirstBatches ?? 0)) continue;
        if (Array.isArray(msg)) {
          const answers = msg.map((r) => answer(r)).filter((a): a is object => a !== null);
          socket.write(JSON.stringify(answers) + '\n');
        } else if (opts.stall && msg.method.startsWith('blockchain.scripthash.') && stallRemainingMs() > 0) {
          // Inside the stall window: the answer is held until the window ends.
          inFlight(+1);
          later(() => {
            inFlight(-1);
            state.answered++;
            if (!socket.destroyed) handle(socket, msg);
          }, stallRemainingMs() + (opts.delayMs ?? 0));
        } else if (opts.hangHeaders && msg.method.startsWith('blockchain.headers.')) {
          // Never answered: a wallet's first question (the tip) goes as unanswered as its scripthash calls.
        } else if (!msg.method.startsWith('blockchain.scripthash.') || !(opts.delayMs || opts.hangAfterHandshake)) {
          if (msg.method.startsWith('blockchain.scripthash.')) state.answered++;
          handle(socket, msg);
          if (opts.goDownAfter !== undefined && state.answered >= opts.goDownAfter && server.listening) goDown();
        } else if (!opts.hangAfterHandshake) {
          inFlight(+1);
          later(() => {
            inFlight(-1);
            state.answered++;
            if (!socket.destroyed) handle(socket, msg);
          }, opts.delayMs ?? 0);
        }
      }
    });
  });

  /** A crashed server: its port refuses connections, its connections end once what was written to them is sent. */
  function goDown(): void {
    server.close();
    for (const s of sockets) s.end();
  }

  function answer(r: Req): object | null {
    switch (r.method) {
      case 'server.version':
        return { jsonrpc: '2.0', id: r.id, result: [opts.software ?? 'Misbehaving 0.1', '1.4'] };
      case 'server.ping':
        state.pings++;
        return { jsonrpc: '2.0', id: r.id, result: null };
      case 'test.echo':
        return { jsonrpc: '2.0', id: r.id, result: r.params };
      case 'blockchain.block.header':
        if (opts.genesisHeader && r.params[0] === 0) return { jsonrpc: '2.0', id: r.id, result: opts.genesisHeader };
        return answerUnknown(r);
      case 'test.error':
        return { jsonrpc: '2.0', id: r.id, error: { code: r.params[0], message: r.params[1] } };
      case 'test.string_error': // mempool's electrs: `"error": "<message>"`, no error object
        return { jsonrpc: '2.0', id: r.id, error: r.params[0] };
      case 'blockchain.scripthash.get_balance':
        if (opts.emptyAnswers) return { jsonrpc: '2.0', id: r.id, result: { confirmed: 0, unconfirmed: 0 } };
        return answerUnknown(r);
      case 'blockchain.scripthash.get_history':
      case 'blockchain.scripthash.listunspent':
        if (opts.emptyAnswers) return { jsonrpc: '2.0', id: r.id, result: [] };
        return answerUnknown(r);
      default:
        return answerUnknown(r);
    }
  }

  function answerUnknown(r: Req): object {
    if (opts.nullResults) return { jsonrpc: '2.0', id: r.id, result: null };
    return { jsonrpc: '2.0', id: r.id, error: { code: -32601, message: `unknown method ${r.method}` } };
  }

  function handle(socket: net.Socket, r: Req): void {
    if (opts.oversizedAnswers !== undefined && r.method.startsWith('blockchain.scripthash.')) return sendOversized(socket, r.id, opts.oversizedAnswers);
    switch (r.method) {
      case 'test.stall':
        return;
      case 'test.late':
        later(() => {
          if (!socket.destroyed) socket.write(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: r.params[1] }) + '\n');
        }, r.params[0] as number);
        return;
      case 'test.garbage':
        socket.write('this is not json\n');
        return;
      case 'test.wrong_id':
        socket.write(JSON.stringify({ jsonrpc: '2.0', id: r.id + 1000, result: 'for someone else' }) + '\n');
        return;
      case 'test.oversized':
        return sendOversized(socket, r.id, r.params[0] as number);
      case 'test.cut':
        socket.write(`{"jsonrpc":"2.0","id":${r.id},"result":"half`, () => socket.destroy());
        return;
      default: {
        const a = answer(r);
        if (opts.closeOnUnknown && a && 'error' in a) socket.destroy();
        else if (a) send(socket, JSON.stringify(a));
      }
    }
  }

  /**
   * One answer line of about `bytes`, a MiB at a time as the client takes them: however long the
   * line, this server never holds more than a socket's buffer of it (a test may measure the memory
   * of the process it runs in).
   */
  function sendOversized(socket: net.Socket, id: number, bytes: number): void {
    let left = Math.ceil(bytes / FILLER.length);
    socket.write(`{"jsonrpc":"2.0","id":${id},"result":"`);
    const more = () => {
      while (left > 0 && !socket.destroyed) {
        left--;
        if (!socket.write(FILLER)) return void socket.once('drain', more);
      }
      if (!socket.destroyed) socket.write('"}\n');
    };
    more();
  }

  function send(socket: net.Socket, line: string): void {
    const text = opts.noNewline ? line : line + '\n';
    if (!opts.dripMs) return void socket.write(text);
    let at = 0;
    const drip = setInterval(() => {
      if (socket.destroyed || at >= text.length) return clearInterval(drip);
      socket.write(text[at++]);
    }, opts.dripMs);
  }

  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    get pings() {
      return state.pings;
    },
    get connections() {
      return state.connections;
    },
    get answered() {
      return state.answered;
    },
    meanInFlight: () => (flight.last > flight.first ? flight.area / (flight.last - flight.first) : 0),
    close: () =>
      new Promise<void>((resolve) => {
        held.clear();
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The same server in a child process of its own, for tests that measure our process's event loop
 * (a server in the same process would be busy on that very loop).
 */
export async function startMisbehavingServerProcess(opts: Omit<MisbehavingOptions, 'port'> = {}): Promise<{ port: number; close(): void }> {
  const { spawn } = await import('node:child_process');
  const { runnable } = await import('./build');
  const { flags, module } = runnable('test/support/misbehaving-server.ts');
  const code = `require(${JSON.stringify(module)}).startMisbehavingServer(${JSON.stringify(opts)}).then((s) => console.log(s.port))`;
  const child = spawn(process.execPath, [...flags, '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
    child.once('exit', (c) => reject(new Error(`misbehaving server process exited with ${c}`)));
  });
  return { port, close: () => child.kill('SIGKILL') };
}

/** `server` closed (every socket with it) and, `downMs` later, the same server started again on its port. */
export async function restartMisbehavingServer(server: Misbehaving, opts: Omit<MisbehavingOptions, 'port'>, downMs: number): Promise<{ second: Misbehaving; closedAt: number; backAt: number }> {
  const closedAt = Date.now();
  await server.close();
  await new Promise((r) => setTimeout(r, downMs));
  const second = await startMisbehavingServer({ ...opts, port: server.port });
  return { second, closedAt, backAt: Date.now() };
}
