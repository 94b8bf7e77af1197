/**
 * The lab's own processes: spawned detached with their output in a log file and their pid in a pid
 * file, stopped only through those pid files. Each process leads its own process group (detached
 * spawn), so stopping signals the group and also reaches children a server may have forked.
 * A pid file older than the process now holding that pid means the pid was reused: that process is
 * not ours and is never signalled.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/user-error';
import type { LabPaths } from './config';
import type { LabComponent } from './servers/registry';
import type { VersionName } from './versions';
import { makeDirs } from '../core/output-path';
import { cpuListText, parseCpuList, pinnedCommand } from '../core/cpu-set';

/** What the lab starts, stops and logs by name: its components and servers in other versions. */
export type LabProcess = LabComponent | VersionName;

export interface SpawnSpec {
  name: LabProcess;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export function pidFile(paths: LabPaths, name: LabProcess): string {
  return path.join(paths.pidDir, `${name}.pid`);
}

export function logFile(paths: LabPaths, name: LabProcess): string {
  return path.join(paths.logDir, `${name}.log`);
}

/** The CPUs the lab's processes are pinned to (`lab up --cpus`), or null: any. */
export function labCpus(paths: LabPaths): number[] | null {
  let text: string;
  try {
    text = fs.readFileSync(paths.cpusFile, 'utf8').trim();
  } catch {
    return null;
  }
  const cpus = parseCpuList(text);
  return Array.isArray(cpus) && cpus.length > 0 ? cpus : null;
}

/** The lab's CPUs as `lab status` prints them ("0-1"), or null: any. */
export function labCpusText(paths: LabPaths): string | null {
  const cpus = labCpus(paths);
  return cpus ? cpuListText(cpus) : null;
}

/**
 * Starts `spec` in its own session, output to its log file (truncated), and records its pid. On a
 * lab with CPUs of its own it starts under taskset, which execs the command: the pid is the same.
 */
export function spawnDetached(paths: LabPaths, spec: SpawnSpec): number {
  makeDirs(paths.pidDir);
  makeDirs(paths.logDir);
  const log = fs.openSync(logFile(paths, spec.name), 'w');
  const cpus = labCpus(paths);
  const { command, args } = cpus ? pinnedCommand(cpus, spec.command, spec.args) : spec;
  try {
    const child = spawn(command, args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      detached: true,
      stdio: ['ignore', log, log],
    });
    if (child.pid === undefined) {
      throw new Error(`${spec.name}: could not start ${spec.command} (see ${logFile(paths, spec.name)})`);
    }
    // An 'error' event (e.g. ENOENT) would otherwise be thrown asynchronously and crash the CLI.
    child.on('error', (err) => fs.appendFileSync(logFile(paths, spec.name), `\n[lab] spawn error: ${err.message}\n`));
    child.unref();
    fs.writeFileSync(pidFile(paths, spec.name), `${child.pid}\n`);
    return child.pid;
  } finally {
    fs.closeSync(log);
  }
}

/** The pid recorded for `name`, if its pid file exists and parses. */
export function recordedPid(paths: LabPaths, name: LabProcess): number | null {
  let text: string;
  try {
    text = fs.readFileSync(pidFile(paths, name), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 1 ? pid : null;
}

/** The recorded pid if that process is alive and is the one we started; otherwise null. */
export function runningPid(paths: LabPaths, name: LabProcess): number | null {
  const pid = recordedPid(paths, name);
  if (pid === null || !isAlive(pid)) return null;
  const started = processStartMs(pid);
  if (started !== null) {
    const written = fs.statSync(pidFile(paths, name)).mtimeMs;
    // The pid file is written right after spawn; a process younger than the file reused the pid.
    if (started > written + 2_000) return null;
  }
  return pid;
}

/**
 * Stops the process group recorded for `name`: SIGTERM, then SIGKILL after `graceMs`. Removes the pid
 * file. Returns what was found, for the CLI to report.
 */
export async function stopComponent(
  paths: LabPaths,
  name: LabProcess,
  graceMs: number,
): Promise<'not-running' | 'stopped' | 'killed'> {
  const pid = runningPid(paths, name);
  let outcome: 'not-running' | 'stopped' | 'killed' = 'not-running';
  if (pid !== null) {
    signalGroup(pid, 'SIGTERM');
    outcome = 'stopped';
    if (!(await waitGone(pid, graceMs))) {
      signalGroup(pid, 'SIGKILL');
      outcome = 'killed';
      if (!(await waitGone(pid, 5_000))) {
        throw new Error(`${name} (pid ${pid}) survived SIGKILL; pid file ${pidFile(paths, name)} kept`);
      }
    }
  }
  fs.rmSync(pidFile(paths, name), { force: true });
  return outcome;
}

/** The last `lines` lines of a component's log, for error messages. */
export function logTail(paths: LabPaths, name: LabProcess, lines = 30): string {
  let text: string;
  try {
    text = fs.readFileSync(logFile(paths, name), 'utf8');
  } catch {
    return `(no log at ${logFile(paths, name)})`;
  }
  return text.split('\n').slice(-lines - 1).join('\n').trimEnd();
}

/** Alive and not a zombie (a zombie still answers kill(pid, 0)). */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  if (stat) return stat.state !== 'Z' && stat.state !== 'X';
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

/** True once the leader and every live member of its process group have exited. */
async function waitGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!isAlive(pgid) && groupMembers(pgid).length === 0) return true;
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
}

/** Live members of process group `pgid`, read from /proc (empty where /proc is absent). */
export function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  const members: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const st = procStat(Number(e));
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') members.push(Number(e));
  }
  return members;
}

interface ProcStat {
  state: string;
  pgrp: number;
  startTicks: number;
}

// proc(5): the command name (field 2) is parenthesised and may contain spaces, so fields are
// counted from the last ')'.
function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0], pgrp: Number(rest[2]), startTicks: Number(rest[19]) };
}

let bootMs: number | null | undefined;

/** Wall-clock start of `pid` in ms, or null where /proc cannot tell. Assumes USER_HZ = 100 (Linux). */
function processStartMs(pid: number): number | null {
  if (bootMs === undefined) {
    try {
      const btime = /^btime (\d+)$/m.exec(fs.readFileSync('/proc/stat', 'utf8'));
      bootMs = btime ? Number(btime[1]) * 1000 : null;
    } catch {
      bootMs = null;
    }
  }
  const st = procStat(pid);
  if (bootMs === null || !st) return null;
  return bootMs + st.startTicks * 10;
}

/**
 * Runs `fn` holding the lab's lock file (pid inside), so two `up`/`down` runs on the same state dir
 * (e.g. two jest runs) cannot stop each other's processes half-way. A lock whose pid is dead is stale.
 */
export async function withLabLock<T>(paths: LabPaths, what: string, fn: () => Promise<T>): Promise<T> {
  const lock = path.join(paths.pidDir, 'lab.lock');
  makeDirs(paths.pidDir);
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(lock, `${process.pid} ${what}\n`, { flag: 'wx' });
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw lockedError(lock, err);
      const holder = Number(fs.readFileSync(lock, 'utf8').split(' ')[0]);
      // Nested use in one process (e.g. `down` from a Ctrl-C handler while `up` runs) is allowed.
      if (holder === process.pid) return fn();
      if (Number.isInteger(holder) && holder > 1 && isAlive(holder)) throw lockedError(lock, err);
      fs.rmSync(lock, { force: true });
    }
  }
  // process.exit() (e.g. after Ctrl-C) skips `finally`; 'exit' handlers still run.
  const release = () => fs.rmSync(lock, { force: true });
  process.once('exit', release);
  try {
    return await fn();
  } finally {
    process.off('exit', release);
    release();
  }
}

function lockedError(lock: string, err: unknown): Error {
  let holder = '';
  try {
    holder = fs.readFileSync(lock, 'utf8').trim();
  } catch {
    holder = (err as Error).message;
  }
  return new UserError(`another lab command holds ${lock} (pid ${holder}); wait for it, or use another ELECTRUM_BENCH_LAB_DIR`);
}

/** A component that did not come up; the message carries the tail of its log. */
export class ComponentFailed extends Error {
  constructor(readonly component: LabProcess, what: string, readonly logTailText: string, readonly log: string) {
    super(`${component}: ${what}\n--- last lines of ${log} ---\n${logTailText}`);
    this.name = 'ComponentFailed';
  }
}

/**
 * Polls `probe` until it returns a value, failing early if the process dies and after `timeoutMs`
 * with the tail of its log. `probe` throwing or returning undefined means "not yet"; its last
 * complaint goes into the timeout message.
 */
export async function waitReady<T>(
  paths: LabPaths,
  name: LabProcess,
  pid: number,
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined>,
  pollMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (err) {
      last = (err as Error).message;
    }
    if (!isAlive(pid)) throw new ComponentFailed(name, `exited before ${what} (${last})`, logTail(paths, name), logFile(paths, name));
    if (Date.now() > deadline) {
      throw new ComponentFailed(name, `not ${what} within ${Math.round(timeoutMs / 1000)} s (${last})`, logTail(paths, name), logFile(paths, name));
    }
    await sleep(pollMs);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
