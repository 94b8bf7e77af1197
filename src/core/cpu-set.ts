/**
 * CPU affinity, so a generator and the server it measures can run on different cores of one
 * machine (issue #19): a list as taskset(1) writes it ("1", "0-1", "0,2-3"), checked against the
 * CPUs this process may use, and applied with taskset (util-linux) to every thread of a process.
 * Linux only: elsewhere a list is refused with the reason.
 */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { UserError } from './user-error';

/** The CPUs of a list, ascending; a string naming the problem when it is not one. */
export function parseCpuList(text: string): number[] | string {
  const cpus = new Set<number>();
  for (const part of text.split(',')) {
    const m = /^\s*(\d+)(?:-(\d+))?\s*$/.exec(part);
    if (!m) return `"${part}" is not a CPU number or range (e.g. 1, 0-1, 0,2-3)`;
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    if (to < from) return `"${part}" runs backwards`;
    for (let c = from; c <= to; c++) cpus.add(c);
  }
  return [...cpus].sort((a, b) => a - b);
}

/** A list written back in taskset's form: "0-1,3". */
export function cpuListText(cpus: number[]): string {
  const runs: string[] = [];
  for (let i = 0; i < cpus.length; ) {
    let j = i;
    while (j + 1 < cpus.length && cpus[j + 1] === cpus[j] + 1) j++;
    runs.push(i === j ? String(cpus[i]) : `${cpus[i]}-${cpus[j]}`);
    i = j + 1;
  }
  return runs.join(',');
}

/** The CPUs process `pid` may run on (its main thread's), from /proc; null off Linux. */
export function allowedCpus(pid: number | 'self' = 'self'): number[] | null {
  let status: string;
  try {
    status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return null;
  }
  const m = /^Cpus_allowed_list:\s*(.+)$/m.exec(status);
  const cpus = m ? parseCpuList(m[1].trim()) : null;
  return Array.isArray(cpus) ? cpus : null;
}

/**
 * `text` given to `option` as a CPU set: its CPUs, or every problem with it (not a list, or CPUs
 * this process may not use). Reads /proc only; whether taskset is there is found when it is run.
 */
export function cpuSet(option: string, text: string): { cpus?: number[]; problems: string[] } {
  const cpus = parseCpuList(text);
  if (typeof cpus === 'string') return { problems: [`${option} ${text}: ${cpus}`] };
  const allowed = allowedCpus();
  if (allowed === null) return { problems: [`${option}: CPU affinity is set through /proc and taskset, which this system (${process.platform}) lacks`] };
  const outside = cpus.filter((c) => !allowed.includes(c));
  if (outside.length > 0) return { problems: [`${option} ${text}: CPU${outside.length > 1 ? 's' : ''} ${cpuListText(outside)} not available here (this process may use ${cpuListText(allowed)})`] };
  return { cpus, problems: [] };
}

export const cpuSetProblems = (option: string, text: string): string[] => cpuSet(option, text).problems;

/** Why taskset cannot run here (`option` named), or undefined: for a command that hands taskset to others (the lab's servers). */
export function tasksetProblem(option: string): string | undefined {
  return spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0 ? undefined : `${option}: taskset (util-linux) is not installed`;
}

/**
 * Moves every thread of `pid` onto `cpus` (threads started later inherit it); returns the list the
 * kernel then reports for the process, which is what a run records.
 */
export function pinProcess(pid: number, cpus: number[], option: string): string {
  const list = cpuListText(cpus);
  const r = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', list, String(pid)], { encoding: 'utf8' });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') throw new UserError(`${option}: taskset (util-linux) is not installed`);
  if (r.status !== 0) throw new Error(`taskset could not pin process ${pid} to CPUs ${list}: ${(r.stderr || r.error?.message || '').trim()}`);
  const now = allowedCpus(pid);
  return now ? cpuListText(now) : list;
}

/** The command and arguments that start `command` already pinned to `cpus`. */
export function pinnedCommand(cpus: number[], command: string, args: string[]): { command: string; args: string[] } {
  return { command: 'taskset', args: ['--cpu-list', cpuListText(cpus), command, ...args] };
}

/**
 * Where a run's processes could run, in words a result can carry: the generator's CPUs, and each
 * server's whose process is known (a pid, or a pid file read now), from the kernel's list for it.
 */
export function pinningText(generatorCpus: string | undefined, servers: ReadonlyArray<{ name: string; pid?: number; pidFile?: string }>): string {
  const generator = generatorCpus ? `generator on CPUs ${generatorCpus}` : `generator not pinned (CPUs ${cpuListText(allowedCpus() ?? [])})`;
  const known = servers.flatMap((s) => {
    const pid = s.pid ?? pidIn(s.pidFile);
    const cpus = pid === undefined ? null : allowedCpus(pid);
    return cpus ? [`${s.name} on CPUs ${cpuListText(cpus)}`] : [];
  });
  return known.length > 0 ? `${generator}; ${known.join(', ')}` : `${generator}; the servers' CPUs are not known here (--server-pid, or --lab --resources, reads them)`;
}

function pidIn(file: string | undefined): number | undefined {
  if (!file) return undefined;
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
