/** The arrival stamp (src/core/socket-arrival.ts) that REST and WebSocket replies are timed by. */
import { arrivalStamper, socketArrival } from '../../../src/core/socket-arrival';

test("a stamp holds for the dispatch that set it and is gone on the next tick", async () => {
  expect(socketArrival()).toBeNull();
  const before = process.hrtime.bigint();
  arrivalStamper(false)();
  const stamped = socketArrival();
  expect(stamped).not.toBeNull();
  expect(stamped!.ns).toBeGreaterThanOrEqual(before);
  // The unmeasured path (a load's) never reads the loop's utilisation.
  expect(stamped!.active).toBeUndefined();
  await new Promise<void>((resolve) => process.nextTick(resolve));
  expect(socketArrival()).toBeNull();
});

test("with the loop measured, a stamp carries the loop's active time at the arrival", () => {
  const activeBefore = performance.eventLoopUtilization().active;
  arrivalStamper(true)();
  expect(socketArrival()!.active).toBeGreaterThanOrEqual(activeBefore);
});
