/**
 * Real-time scheduling for the generator: the probe says what `chrt` says of starting a process
 * real-time here (root may; a process without CAP_SYS_NICE may not), and each thread's policy is
 * read from /proc as the kernel gives it.
 */
import { spawnSync } from 'node:child_process';
import { REALTIME_PRIORITY, realtimeProblem, threadPolicies } from '../../../src/core/realtime';

const chrtMay = spawnSync('chrt', ['--fifo', String(REALTIME_PRIORITY), 'true']).status === 0;

test('the probe agrees with chrt itself, and names the option and chrt\'s reason when refused', () => {
  const problem = realtimeProblem('--realtime');
  if (chrtMay) expect(problem).toBeUndefined();
  else expect(problem).toMatch(/^--realtime: (chrt \(util-linux\) is not installed|this process may not use real-time scheduling .*: chrt said ".+")$/);
});

test('every thread of this (ordinary) process reads as SCHED_OTHER 0, and a real-time child as SCHED_FIFO', () => {
  const own = threadPolicies();
  expect(own.length).toBeGreaterThanOrEqual(2); // node's main thread and its platform workers
  expect(new Set(own)).toEqual(new Set(['SCHED_OTHER 0']));
  if (!chrtMay) return;
  // A node started real-time reads its own threads through the same function.
  const r = spawnSync('chrt', ['--fifo', '3', process.execPath, '-e', `process.stdout.write(JSON.stringify(require(${JSON.stringify(require.resolve('../../../src/core/realtime'))}).threadPolicies()))`], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import tsx`.trim() },
  });
  expect(r.stderr).toBe('');
  expect(new Set(JSON.parse(r.stdout))).toEqual(new Set(['SCHED_FIFO 3']));
});
