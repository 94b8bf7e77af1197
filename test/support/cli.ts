/**
 * A command run in this process, as its process would run it: `runCommand` (the process's own error
 * handler) on its argv, with what it writes to stdout and stderr (console's writes included)
 * captured, in a cwd of the test's choosing, with `process.exit` (yargs' --help) turned into the
 * exit code. Afterwards everything is as it was: streams, console, cwd, environment, exit code,
 * signal handlers.
 *
 * A real process exits when nothing holds its event loop; a command that returned but left a
 * socket or timer holding it would hang its process. That is a failure here too: `cli` waits a
 * moment for what the command opened (not what the test does meanwhile, e.g. a server it
 * restarts) to close, then throws naming what is still open.
 *
 * One command at a time: stdout, stderr and the cwd are the process's, and so are the claims of
 * src/core/output-path.ts, which a command releases when it ends.
 */
import { AsyncLocalStorage, createHook } from 'node:async_hooks';
import { format } from 'node:util';

const COMMANDS = {
  bench: () => import('../../src/cli/bench'),
  load: () => import('../../src/cli/load'),
  dataset: () => import('../../src/cli/dataset'),
  report: () => import('../../src/cli/report'),
  'index-bench': () => import('../../src/cli/index-bench'),
  cluster: () => import('../../src/cli/cluster'),
  lab: () => import('../../src/cli/lab'),
  limits: () => import('../../src/cli/limits'),
};
export type CommandName = keyof typeof COMMANDS;
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

export interface CliOptions {
  /** The command's working directory (a default output path lands there). */
  cwd?: string;
  /** Variables set (a string) or unset (undefined) for the command. */
  env?: Record<string, string | undefined>;
}

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** From the call to the exit code (the command's modules loaded before). */
  ms: number;
}

/** How long what a command opened may take to close after it returned (a peer's socket sees the close a moment later). */
const SETTLE_MS = 2000;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Thrown by the trapped process.exit: nothing after it runs in a real process. */
class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

let running = false;

export async function cli(command: CommandName, argv: string[], opts: CliOptions = {}): Promise<CliRun> {
  if (running) throw new Error('cli: one command at a time in process (stdout, stderr, cwd and claims are the process\'s)');
  const [{ main }, { runCommand }, { releaseSignalHandlers }] = await Promise.all([COMMANDS[command](), import('../../src/cli/run-cli'), import('../../src/runs/signals')]);
  running = true;
  const restore: Array<() => void> = [];
  const opened = openedBy(command);
  const signalListeners = STOP_SIGNALS.map((s) => process.listenerCount(s));
  const out = { stdout: '', stderr: '', open: true };
  let exitedWith: number | undefined;
  try {
    restore.push(capture(process.stdout, (text) => (out.stdout += text), () => out.open));
    restore.push(capture(process.stderr, (text) => (out.stderr += text), () => out.open));
    // In a process, console writes to those streams (yargs prints --help with console.log); here it is jest's.
    restore.push(captureConsole({ stdout: (text) => (out.stdout += text), stderr: (text) => (out.stderr += text) }, () => out.open));
    restore.push(setEnv({ FORCE_COLOR: '0', ...opts.env }));
    const exitCode = process.exitCode;
    restore.push(() => (process.exitCode = exitCode));
    const exit = process.exit;
    process.exit = ((code?: number | string | null) => {
      exitedWith ??= Number(code ?? process.exitCode ?? 0);
      out.open = false;
      throw new ExitCalled(exitedWith);
    }) as typeof process.exit;
    restore.push(() => (process.exit = exit));
    if (opts.cwd !== undefined) {
      const cwd = process.cwd();
      process.chdir(opts.cwd);
      restore.push(() => process.chdir(cwd));
    }
    const t0 = performance.now();
    const returned = await opened.run(() => runCommand(main, argv));
    const ms = performance.now() - t0;
    return { code: exitedWith ?? returned, stdout: out.stdout, stderr: out.stderr, ms };
  } finally {
    releaseSignalHandlers();
    for (const undo of restore.reverse()) undo();
    running = false;
    await opened.settled(`${command} ${argv.join(' ')}`);
    const added = STOP_SIGNALS.filter((s, i) => process.listenerCount(s) > signalListeners[i]);
    if (added.length) throw new Error(`${command} ${argv.join(' ')}: left a handler for ${added.join(', ')} installed`);
  }
}

/** Replaces `stream.write` by `sink` (while `open()`); returns the undo. A pipe, not a terminal, as for a spawned command. */
function capture(stream: NodeJS.WriteStream, sink: (text: string) => void, open: () => boolean): () => void {
  const write = stream.write;
  const tty = Object.getOwnPropertyDescriptor(stream, 'isTTY');
  stream.write = ((chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error | null) => void), done?: (err?: Error | null) => void) => {
    if (open()) sink(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    const callback = typeof encoding === 'function' ? encoding : done;
    if (callback) process.nextTick(callback);
    return true;
  }) as typeof stream.write;
  Object.defineProperty(stream, 'isTTY', { value: false, configurable: true, writable: true });
  return () => {
    stream.write = write;
    if (tty) Object.defineProperty(stream, 'isTTY', tty);
    else delete (stream as { isTTY?: boolean }).isTTY;
  };
}

function captureConsole(sinks: Record<'stdout' | 'stderr', (text: string) => void>, open: () => boolean): () => void {
  const methods = { log: 'stdout', info: 'stdout', debug: 'stdout', error: 'stderr', warn: 'stderr' } as const;
  const saved = Object.keys(methods).map((m) => [m, console[m as keyof typeof methods]] as const);
  for (const [method, stream] of Object.entries(methods)) {
    console[method as keyof typeof methods] = (...args: unknown[]) => {
      if (open()) sinks[stream](`${format(...args)}\n`);
    };
  }
  return () => {
    for (const [method, fn] of saved) console[method as keyof typeof methods] = fn;
  };
}

function setEnv(vars: Record<string, string | undefined>): () => void {
  const before = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const put = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  put(vars);
  return () => put(before);
}

interface Holder {
  hasRef(): boolean;
}

/**
 * Every timer, socket, server, child process or other handle that `run`'s work opens (they can say
 * whether they hold the loop: `hasRef`), until closed. `settled` waits until none that holds the
 * loop is left, and lets go of the hook.
 */
function openedBy(command: string): { run<T>(work: () => Promise<T>): Promise<T>; settled(what: string): Promise<void> } {
  const context = new AsyncLocalStorage<string>();
  const open = new Map<number, { type: string; resource: Holder }>();
  const hook = createHook({
    init(id, type, _trigger, resource) {
      if (context.getStore() === command && typeof (resource as Partial<Holder>).hasRef === 'function') open.set(id, { type, resource: resource as Holder });
    },
    destroy(id) {
      open.delete(id);
    },
  }).enable();
  const holding = () => [...open.values()].filter((h) => h.resource.hasRef()).map((h) => h.type);
  return {
    run: (work) => context.run(command, work),
    async settled(what) {
      try {
        const end = Date.now() + SETTLE_MS;
        for (let held = holding(); held.length; held = holding()) {
          if (Date.now() > end) throw new Error(`${what}: returned, but left ${held.join(', ')} holding the event loop (its process would not have exited)`);
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        hook.disable();
      }
    },
  };
}
