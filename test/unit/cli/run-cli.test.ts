/**
 * Every thrown error reaches one handler (src/cli/run-cli.ts): a user's mistake is one line and
 * exit 2; a bug is one line naming a file that holds its stack, exit 1, never a stack on stderr;
 * either way nothing is left half written. Errors that escape the command (thrown in a timer or a
 * socket callback, a promise nobody awaited) are run in a process of their own, through runCli as
 * every command runs; a command run in this process (runCommand) ends through the same handler.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { reportError, runCommand } from '../../../src/cli/run-cli';
import { fileAboutToBeCreated } from '../../../src/core/created-file';
import { claimOutputFile } from '../../../src/core/output-path';
import { UserError } from '../../../src/core/user-error';
import { holdsAnyRun, ResultsStore } from '../../../src/store/results';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const src = (file: string) => JSON.stringify(path.join(ROOT, 'src', file));

let tmp: string;
let home: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-run-cli-'));
  home = path.join(tmp, 'home');
});
afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

/**
 * A command, as runCli runs one: it claims --db and --out, creates the database (storing a run in
 * it when `stores`), and while it runs, the error `how` says is thrown where the command cannot
 * catch it. The command line carries a password, the environment another, the message a URL's.
 */
const COMMAND = `
const path = require('node:path');
const net = require('node:net');
const { runCli } = require(${src('cli/run-cli')});
const { claimOutputFile } = require(${src('core/output-path')});
const { fileAboutToBeCreated } = require(${src('core/created-file')});
const { ResultsStore } = require(${src('store/results')});
const { LoadStore } = require(${src('store/load-results')});
const { UserError } = require(${src('core/user-error')});
const [dir, how, port] = process.argv.slice(2);
runCli(async () => {
  const db = claimOutputFile(path.join(dir, 'results', 'r.sqlite'), '--db');
  fileAboutToBeCreated(db);
  const store = ResultsStore.open(db);
  if (how.endsWith('-stored')) new LoadStore(store).createRun({ tool_version: 't', git_commit: null, config: {}, model: { kind: 'vus', vus: 1, thinkTimeMs: 0 }, model_text: '1 VU', dataset_path: null, dataset_hash: null, shard: null }, []);
  claimOutputFile(path.join(dir, 'report', 'index.html'), '--out');
  const bug = new TypeError('a bug, with http://alice:pw123@node:8332 and ' + process.env.ELECTRUM_BENCH_RPC_PASSWORD + ' in its message');
  if (how.startsWith('timer')) setTimeout(() => { throw bug; }, 20);
  if (how === 'rejection') Promise.reject(bug);
  if (how === 'socket-user-error') {
    net.connect(Number(port), '127.0.0.1').on('data', () => { throw new UserError('wallet w: the scan needs receive script 2, but the wallets file lists 2'); });
  }
  // A run in progress that never ends by itself.
  await new Promise(() => setInterval(() => undefined, 1000));
});
`;

interface Ended {
  code: number | null;
  stderr: string;
  left: string[];
}

async function runInItsOwnProcess(how: string, port = 0): Promise<Ended> {
  const dir = path.join(tmp, 'work');
  fs.mkdirSync(dir, { recursive: true });
  const script = path.join(tmp, 'command.ts');
  fs.writeFileSync(script, COMMAND);
  const child = spawn(process.execPath, ['--import', 'tsx', script, dir, how, String(port), '--rpc-password', 'hunter2'], {
    cwd: ROOT,
    env: { ...process.env, ELECTRUM_BENCH_HOME: home, ELECTRUM_BENCH_RPC_PASSWORD: 's3cret-pw' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stderr, left: fs.readdirSync(dir, { recursive: true }) as string[] };
}

/** The one line of a bug, and what its details file holds. */
function bugLine(e: Ended): { message: string; details: string } {
  const lines = e.stderr.replace(/\n$/, '').split('\n');
  expect({ lines, code: e.code }).toEqual({ lines: [expect.stringMatching(/^electrum-bench: internal error: /)], code: 1 });
  const m = /^electrum-bench: internal error: (.*); details in (\S+)$/.exec(lines[0])!;
  expect(m).not.toBeNull();
  expect(path.dirname(m[2])).toBe(path.join(home, 'errors'));
  return { message: m[1], details: fs.readFileSync(m[2], 'utf8') };
}

test('an error thrown in a timer: one line naming the details file, exit 1; the file holds the stack and the command line without its secrets; nothing left', async () => {
  const e = await runInItsOwnProcess('timer');
  const { message, details } = bugLine(e);
  expect(message).toBe('TypeError: a bug, with http://***@node:8332 and *** in its message');
  expect(e.stderr).not.toMatch(/^\s+at /m);
  expect(details).toContain('how it ended: thrown in a callback, outside the command (uncaughtException)');
  expect(details).toMatch(/^TypeError: a bug, with http:\/\/\*\*\*@node:8332 and \*\*\* in its message\n\s+at .*command\.ts:\d+:\d+\)?\n/m);
  expect(details).toMatch(/^command: .*command\.ts .* timer 0 --rpc-password '\*\*\*'$/m);
  expect(details).toMatch(/^electrum-bench \S+ .*Node v\d+/m);
  for (const secret of ['hunter2', 's3cret-pw', 'alice', 'pw123']) expect(details).not.toContain(secret);
  // The database the command created holds no run; the claimed directories hold nothing.
  expect(e.left).toEqual([]);
});

test('a database that holds a run is kept; what the claims made and nothing filled goes', async () => {
  const e = await runInItsOwnProcess('timer-stored');
  bugLine(e);
  expect(e.left.filter((f) => !f.endsWith('-wal') && !f.endsWith('-shm')).sort()).toEqual(['results', path.join('results', 'r.sqlite')]);
  expect(holdsAnyRun(path.join(tmp, 'work', 'results', 'r.sqlite'))).toBe(true);
});

test('a promise nobody awaited rejecting is the same: one line, exit 1, the stack in the file, nothing left', async () => {
  const e = await runInItsOwnProcess('rejection');
  const { details } = bugLine(e);
  expect(details).toContain('(unhandledRejection)');
  expect(details).toMatch(/^TypeError: a bug, .*\n\s+at /m);
  expect(e.left).toEqual([]);
});

test("a user's mistake seen in a socket callback: its one line, exit 2, no details file, nothing left", async () => {
  const server = net.createServer((s) => s.end('hello\n'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const e = await runInItsOwnProcess('socket-user-error', (server.address() as net.AddressInfo).port);
    expect({ stderr: e.stderr, code: e.code }).toEqual({ stderr: 'electrum-bench: wallet w: the scan needs receive script 2, but the wallets file lists 2\n', code: 2 });
    expect(fs.existsSync(path.join(home, 'errors'))).toBe(false);
    expect(e.left).toEqual([]);
  } finally {
    server.close();
  }
});

describe('the handler, in this process (runCommand, as a test runs a command)', () => {
  const saved = { home: process.env.ELECTRUM_BENCH_HOME };
  let said: string[];
  let stderr: jest.SpyInstance;
  beforeEach(() => {
    said = [];
    process.env.ELECTRUM_BENCH_HOME = home;
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      said.push(String(chunk));
      return true;
    });
  });
  afterEach(() => {
    stderr.mockRestore();
    if (saved.home === undefined) delete process.env.ELECTRUM_BENCH_HOME;
    else process.env.ELECTRUM_BENCH_HOME = saved.home;
  });

  function thrownHere(): Error {
    try {
      JSON.parse('{"half":');
    } catch (err) {
      return err as Error;
    }
    throw new Error('JSON.parse took half an object');
  }

  test('a bug: exactly one line naming the details file, which holds the stack; the claimed path and the empty database are gone', async () => {
    const err = thrownHere();
    const code = await runCommand(async () => {
      const db = claimOutputFile(path.join(tmp, 'out', 'r.sqlite'), '--db');
      fileAboutToBeCreated(db);
      ResultsStore.open(db);
      throw err;
    }, []);
    expect(code).toBe(1);
    expect(said).toHaveLength(1);
    const m = /^electrum-bench: internal error: SyntaxError: (.+); details in (\S+)\n$/.exec(said[0]);
    expect(m).not.toBeNull();
    expect(path.dirname(m![2])).toBe(path.join(home, 'errors'));
    const details = fs.readFileSync(m![2], 'utf8');
    expect(details).toContain(err.stack!);
    expect(details).toMatch(/\n\s+at thrownHere \(.*run-cli\.test\.ts:\d+:\d+\)/);
    expect(details).toContain('how it ended: thrown by the command');
    expect(fs.readdirSync(tmp)).toEqual(['home']);
  });

  test('where $ELECTRUM_BENCH_HOME cannot be written, the details go to the temporary directory, and the line says so', () => {
    process.env.ELECTRUM_BENCH_HOME = '/proc/electrum-bench-no-home';
    expect(reportError(new RangeError('out of range'))).toEqual({ code: 1, details: expect.any(String) });
    expect(said).toHaveLength(1);
    const m = /^electrum-bench: internal error: RangeError: out of range; details in (\S+)\n$/.exec(said[0]);
    expect(m).not.toBeNull();
    try {
      expect(path.dirname(m![1])).toBe(os.tmpdir());
      expect(fs.readFileSync(m![1], 'utf8')).toMatch(/^RangeError: out of range\n\s+at /m);
    } finally {
      fs.rmSync(m![1], { force: true });
    }
  });

  test("a user's mistake: its one line, exit 2, no details file; a second error after it adds no line", () => {
    const first = reportError(new UserError('--passes must be a number,\n  got "abc"'));
    expect(first).toEqual({ code: 2 });
    expect(reportError(new Error('the same failure, seen again from a callback'), 'uncaughtException', first)).toEqual({ code: 2 });
    expect(said).toEqual(['electrum-bench: --passes must be a number, got "abc"\n']);
    expect(fs.existsSync(home)).toBe(false);
  });

  test('a second error after a bug adds no line, and goes to the same details file', () => {
    const first = reportError(new Error('first'));
    expect(reportError(new Error('second'), 'unhandledRejection', first)).toBe(first);
    expect(said).toHaveLength(1);
    const details = fs.readFileSync(first.details!, 'utf8');
    expect(details.indexOf('Error: first')).toBeLessThan(details.indexOf('then, also:'));
    expect(details.slice(details.indexOf('then, also:'))).toMatch(/Error: second\n\s+at /);
  });

  test('something thrown that is not an Error is shown as it is', () => {
    const { details } = reportError({ code: 42, why: 'not an Error' });
    expect(said).toEqual([`electrum-bench: internal error: { code: 42, why: 'not an Error' }; details in ${details}\n`]);
    expect(fs.readFileSync(details!, 'utf8')).toContain("{ code: 42, why: 'not an Error' }");
  });
});
