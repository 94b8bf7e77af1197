/**
 * Real-time scheduling for the generator (`--realtime`): a thread that sleeps until a send is due
 * waits, on a busy machine, for a CPU to be given back to it, and that wait is what made sends at
 * 50–400/s late (docs/findings/2026-11-28-own-time-and-low-rates.md). Under SCHED_FIFO a woken
 * thread takes a CPU from any ordinary (CFS) task at once. It is applied with chrt (util-linux) to
 * every thread of the process; threads started later inherit it. Linux only, and only where the
 * process may (root, or CAP_SYS_NICE, or an RLIMIT_RTPRIO above 0).
 */
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';

/**
 * The lowest real-time priority: above every ordinary task (the servers measured), and below any
 * real-time thread of the system's own (the kernel's, an audio server's).
 */
export const REALTIME_PRIORITY = 1;

/** Why `option` cannot make this process real-time here, or undefined: found by starting `true` under chrt, which changes nothing of ours. */
export function realtimeProblem(option: string): string | undefined {
  const r = spawnSync('chrt', ['--fifo', String(REALTIME_PRIORITY), 'true'], { encoding: 'utf8' });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') return `${option}: chrt (util-linux) is not installed`;
  if (r.status === 0) return undefined;
  const said = (r.stderr || r.error?.message || '').trim().split('\n')[0];
  return `${option}: this process may not use real-time scheduling (it takes root, CAP_SYS_NICE or an RLIMIT_RTPRIO above 0): chrt said "${said}"`;
}

/** Linux's policy numbers (sched.h), as /proc/PID/task/TID/stat's 41st field gives them. */
const POLICY_NAMES: Record<number, string> = { 0: 'SCHED_OTHER', 1: 'SCHED_FIFO', 2: 'SCHED_RR', 3: 'SCHED_BATCH', 5: 'SCHED_IDLE', 6: 'SCHED_DEADLINE' };

/** Each thread's scheduling policy and real-time priority, e.g. "SCHED_FIFO 1", from /proc; [] off Linux. */
export function threadPolicies(pid: number | 'self' = 'self'): string[] {
  let tasks: string[];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command's closing parenthesis, from the 3rd: rt_priority is the 40th, policy the 41st.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const [priority, policy] = [Number(fields[40 - 3]), Number(fields[41 - 3])];
      return [`${POLICY_NAMES[policy] ?? `policy ${policy}`} ${priority}`];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

/**
 * Puts every thread of `pid` under SCHED_FIFO at REALTIME_PRIORITY; returns what the kernel then
 * reports for them ("SCHED_FIFO 1"), which a run records.
 */
export function makeRealtime(pid: number, option: string): string {
  const r = spawnSync('chrt', ['--all-tasks', '--fifo', '--pid', String(REALTIME_PRIORITY), String(pid)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`chrt could not make process ${pid} real-time for ${option}: ${(r.stderr || r.error?.message || '').trim()}`);
  const policies = [...new Set(threadPolicies(pid))];
  const wanted = `SCHED_FIFO ${REALTIME_PRIORITY}`;
  if (policies.length !== 1 || policies[0] !== wanted) throw new Error(`after chrt, process ${pid}'s threads are ${policies.join(', ') || 'unknown'}, not all ${wanted}`);
  return wanted;
}
