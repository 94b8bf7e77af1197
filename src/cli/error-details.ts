/**
 * A bug's details, written to a file of their own so that stderr keeps one line: the stack (and
 * its causes), the command line, the tool's and Node's versions. In
 * $ELECTRUM_BENCH_HOME/errors/ (~/.cache/electrum-bench/errors/), or the system's temporary
 * directory when that cannot be written.
 *
 * No secret is written: a node's password reaches us through ELECTRUM_BENCH_RPC_PASSWORD or a
 * cookie file (--rpc-cookie), never through argv, but a user may still type --rpc-password or a
 * URL with user:password@ in it. Their values, and those of our password variables wherever they
 * show up in a message, are replaced by ***.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { benchHome } from '../core/bench-home';
import { makeDirs } from '../core/output-path';
import { toolInfo } from '../core/tool-info';

const HIDDEN = '***';
/** Options whose value is a secret, compared without dashes and case (yargs also takes --rpcPassword). */
const SECRET_OPTIONS = ['rpcpassword'];
/** Environment variables whose value is a secret. */
const SECRET_ENV = /^ELECTRUM_BENCH_\w*(PASSWORD|SECRET|TOKEN)$/;

/** How the error reached the handler. */
export type EndedBy = 'rejected' | 'uncaughtException' | 'unhandledRejection';

const ENDED_BY: Record<EndedBy, string> = {
  rejected: 'thrown by the command',
  uncaughtException: 'thrown in a callback, outside the command (uncaughtException)',
  unhandledRejection: 'a promise nobody awaited rejected (unhandledRejection)',
};

/** `text` with every secret this process was given replaced, and URLs' user:password@ hidden. */
export function withoutSecrets(text: string, argv: readonly string[] = process.argv, env: NodeJS.ProcessEnv = process.env): string {
  const secrets = new Set<string>();
  for (const [name, value] of Object.entries(env)) if (SECRET_ENV.test(name) && value) secrets.add(value);
  argv.forEach((arg, i) => {
    const m = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!m || !SECRET_OPTIONS.includes(m[1].replace(/-/g, '').toLowerCase())) return;
    const value = m[2] ?? argv[i + 1];
    if (value) secrets.add(value);
  });
  let out = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, `$1${HIDDEN}@`);
  // Longest first, so a secret holding another is hidden whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join(HIDDEN);
  return out;
}

/** What the file says: when, what ran, where, on what, how it ended, and the stack with its causes. */
export function errorDetails(err: unknown, endedBy: EndedBy, notes: readonly string[] = []): string {
  const tool = toolInfo();
  const lines = [
    `electrum-bench internal error, ${new Date().toISOString()}`,
    // Each word's secrets hidden before it is quoted, which could hide a secret from the last pass.
    `command: ${process.argv.slice(1).map((word) => shellWord(withoutSecrets(word))).join(' ')}`,
    `cwd: ${process.cwd()}`,
    `electrum-bench ${tool.version}${tool.gitCommit ? ` (git ${tool.gitCommit})` : ''}, Node ${process.version} on ${process.platform} ${process.arch}, pid ${process.pid}`,
    `how it ended: ${ENDED_BY[endedBy]}`,
    '',
    stackOf(err),
    ...notes.map((n) => `\n${n}`),
  ];
  return withoutSecrets(lines.join('\n') + '\n');
}

function stackOf(err: unknown, depth = 0): string {
  if (!(err instanceof Error)) return inspect(err, { depth: 4 });
  const own = err.stack ?? `${err.name}: ${err.message}`;
  // inspect shows what the stack leaves out: a Node error's code, errno, syscall.
  const extra = Object.keys(err).filter((k) => k !== 'cause');
  const fields = extra.length ? `\n${inspect(Object.fromEntries(extra.map((k) => [k, (err as unknown as Record<string, unknown>)[k]])), { depth: 2 })}` : '';
  const cause = err.cause !== undefined && depth < 5 ? `\ncaused by: ${stackOf(err.cause, depth + 1)}` : '';
  return own + fields + cause;
}

function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Writes the details to a new file: in $ELECTRUM_BENCH_HOME/errors/, else in the temporary
 * directory (or adds them to the file `appendTo`). Returns its path, or why it could not be written.
 */
export function writeErrorDetails(text: string, opts: { appendTo?: string; command?: string } = {}): { file: string } | { failed: string } {
  if (opts.appendTo) {
    try {
      fs.appendFileSync(opts.appendTo, text);
      return { file: opts.appendTo };
    } catch (err) {
      return { failed: `${opts.appendTo}: ${reasonOf(err)}` };
    }
  }
  const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${opts.command ?? commandName()}-${process.pid}.log`;
  const places = [path.join(benchHome(), 'errors', name), path.join(os.tmpdir(), `electrum-bench-${name}`)];
  const reasons: string[] = [];
  for (const file of places) {
    try {
      makeDirs(path.dirname(file));
      fs.writeFileSync(file, text, { flag: 'wx', mode: 0o600 });
      return { file };
    } catch (err) {
      reasons.push(`${file}: ${reasonOf(err)}`);
    }
  }
  return { failed: reasons.join('; ') };
}

const reasonOf = (err: unknown): string => (err as NodeJS.ErrnoException).code ?? (err as Error).message;

/** The command as the launcher names it: its script's name (bench, load, dataset …). */
function commandName(): string {
  const script = require.main?.filename;
  return script ? path.basename(script).replace(/\.[cm]?[jt]s$/, '') : 'electrum-bench';
}
