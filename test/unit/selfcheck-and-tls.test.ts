/**
 * The generator's self-check counts only the stalls that overlap calls in flight (a stall between
 * calls cannot touch a sequential measurement), and --ca adds to the trusted roots.
 */
import tls from 'node:tls';
import { SelfMonitor, selfCheckWarning } from '../../src/bench/selfcheck';
import { trustedCertificates } from '../../src/electrum/client';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* a synchronous stall, like a large batch write */
  }
}

test('a stall between calls shows in the loop delay but not as an in-flight stall, and raises no warning', async () => {
  const monitor = new SelfMonitor();
  for (let i = 0; i < 5; i++) {
    monitor.callStarted();
    await sleep(5);
    monitor.callEnded();
    blockLoop(60); // between calls
  }
  await sleep(20);
  const check = monitor.stop();
  expect(check.eventLoopDelayMs.max).toBeGreaterThan(50);
  // None of the 60 ms stalls between calls is counted. (A busy machine that deschedules this
  // process while a call is in flight shows a few ms: that is a real stall, and rightly counted.)
  expect(check.inFlightStallMs.max).toBeLessThan(40);
  expect(selfCheckWarning(check, 500e6)).toBeNull();
});

test('a stall while a call is in flight is counted and warned about', async () => {
  const monitor = new SelfMonitor();
  for (let i = 0; i < 5; i++) {
    monitor.callStarted();
    await sleep(2);
    blockLoop(60); // the call is still in flight
    await sleep(2);
    monitor.callEnded();
  }
  const check = monitor.stop();
  expect(check.inFlightStallMs.max).toBeGreaterThan(50);
  expect(check.inFlightStallMs.over1ms).toBeGreaterThanOrEqual(5);
  expect(selfCheckWarning(check, 200e6)).toMatch(/stalled while calls were in flight/);
});

test('--ca adds to the bundled root certificates instead of replacing them', () => {
  const extra = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  const trusted = trustedCertificates(extra)!;
  expect(trusted).toHaveLength(tls.rootCertificates.length + 1);
  expect(trusted).toContain(extra);
  expect(trusted).toEqual(expect.arrayContaining([...tls.rootCertificates]));
  expect(trustedCertificates(undefined)).toBeUndefined(); // Node's defaults
});
