/**
 * The generator's self-check counts only our own loop's busy time inside measured calls (a stall
 * between calls cannot touch a sequential measurement).
 */
import { SelfMonitor, selfCheckWarning } from '../../../src/bench/selfcheck';
import { ElectrumClient } from '../../../src/electrum/client';
import { startMisbehavingServerProcess } from '../../support/misbehaving-server';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    /* a synchronous stall, like a large batch write */
  }
}

// In its own process: its work must not be counted as our loop's.
let srv: { port: number; close(): void };
let client: ElectrumClient;
beforeEach(async () => {
  srv = await startMisbehavingServerProcess();
  client = await ElectrumClient.connect({ host: '127.0.0.1', port: srv.port, keepaliveMs: 0, measureLoop: true });
});
afterEach(async () => {
  client.close();
  srv.close();
});

test('a stall between calls shows in the loop delay but not in the calls', async () => {
  const monitor = new SelfMonitor();
  for (let i = 0; i < 5; i++) {
    const o = await client.call('server.ping');
    monitor.recordCall(o.loopBusyMs, o.latencyNs);
    blockLoop(200); // between calls
    await sleep(5);
  }
  const check = monitor.stop();
  expect(check.eventLoopDelayMs.max).toBeGreaterThan(150);
  expect(check.inFlightStallMs.calls).toBe(5);
  // None of the 200 ms stalls is counted (jest's own work on this loop, and other test files on
  // this machine's two cores, may add some to a call).
  expect(check.inFlightStallMs.max).toBeLessThan(150);
});

test('a stall while a call awaits its reply is counted and warned about', async () => {
  const monitor = new SelfMonitor();
  for (let i = 0; i < 5; i++) {
    const started = client.call('server.ping');
    blockLoop(30); // the call is in flight: its reply waits for us
    const o = await started;
    monitor.recordCall(o.loopBusyMs, o.latencyNs);
  }
  const check = monitor.stop();
  expect(check.inFlightStallMs.max).toBeGreaterThan(25);
  expect(check.inFlightStallMs.over1ms).toBe(5);
  expect(check.inFlightStallMs.atRisk).toBe(5);
  expect(selfCheckWarning(check)).toMatch(/5 of 5 counted calls .* waited on the generator's own event loop.*even the medians/);
});

test('the warning names the lowest percentile our own time may have moved, and stays silent below 1 %', () => {
  const warningFor = (risky: number) => {
    const m = new SelfMonitor();
    for (let i = 0; i < 200 - risky; i++) m.recordCall(0.01, 1_000_000n);
    for (let i = 0; i < risky; i++) m.recordCall(0.5, 1_000_000n); // half of a 1 ms call
    m.recordCall(0.5, 100_000_000n); // 0.5 ms of a 100 ms call: not at risk
    return selfCheckWarning(m.stop());
  };
  expect(warningFor(2)).toBeNull();
  expect(warningFor(5)).toMatch(/5 of 201 counted calls .*p99 and above/);
  expect(warningFor(40)).toMatch(/p90 and above/);
  expect(warningFor(150)).toMatch(/even the medians/);
});
