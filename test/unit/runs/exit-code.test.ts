/** One table of exit codes for every run kind (src/runs/exit-code.ts), in its order of precedence. */
import { exitCodeOf, stoppedCode, type ExitFacts } from '../../../src/runs/exit-code';

const done: ExitFacts = { status: 'completed', thresholdsFailed: false, regressed: false, unanswered: [], ignoreUnanswered: false };

test('a stop is 128 + its signal, as a shell reports a process killed by it', () => {
  expect([stoppedCode('SIGINT'), stoppedCode('SIGTERM'), stoppedCode('SIGHUP')]).toEqual([130, 143, 129]);
  expect(exitCodeOf({ ...done, status: 'interrupted', stoppedBy: 'SIGTERM' })).toBe(143);
  // A stop that came from no signal of ours (a coordinator's) is Ctrl-C's.
  expect(exitCodeOf({ ...done, status: 'interrupted' })).toBe(130);
});

test('a failed threshold first, then a stop, then a regression on a completed run, then a server that answered nothing', () => {
  expect(exitCodeOf(done)).toBe(0);
  expect(exitCodeOf({ ...done, thresholdsFailed: true, status: 'aborted' })).toBe(99);
  expect(exitCodeOf({ ...done, thresholdsFailed: true, status: 'interrupted', stoppedBy: 'SIGINT' })).toBe(99);
  expect(exitCodeOf({ ...done, regressed: true, status: 'interrupted', stoppedBy: 'SIGINT', unanswered: ['a'] })).toBe(130);
  expect(exitCodeOf({ ...done, regressed: true, unanswered: ['a'] })).toBe(99);
  expect(exitCodeOf({ ...done, unanswered: ['a'] })).toBe(3);
  expect(exitCodeOf({ ...done, unanswered: ['a'], ignoreUnanswered: true })).toBe(0);
});
