/** One status rule for every run kind, and the shards of one test merged by the same order (src/core/run-status.ts). */
import { statusOf, worstStatus } from '../../../src/core/run-status';

test('failed before aborted before interrupted; a stop once the plan was done leaves the run completed', () => {
  expect(statusOf({ failed: true, aborted: true, stopped: true, planDone: false })).toBe('failed');
  expect(statusOf({ failed: false, aborted: true, stopped: true, planDone: false })).toBe('aborted');
  expect(statusOf({ failed: false, aborted: false, stopped: true, planDone: false })).toBe('interrupted');
  expect(statusOf({ failed: false, aborted: false, stopped: true, planDone: true })).toBe('completed');
  expect(statusOf({ failed: false, aborted: false, stopped: false, planDone: true })).toBe('completed');
});

test("a test's shards: the worst of theirs, a shard still running counted as interrupted", () => {
  expect(worstStatus(['completed', 'completed'])).toBe('completed');
  expect(worstStatus(['completed', 'running'])).toBe('interrupted');
  expect(worstStatus(['interrupted', 'aborted', 'completed'])).toBe('aborted');
  expect(worstStatus(['aborted', 'failed'])).toBe('failed');
});
