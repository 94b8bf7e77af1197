/** The main thread's timer slack, read and set through /proc (src/core/timer-slack.ts). */
import { setTimerSlackNs, timerSlackNs } from '../../../src/core/timer-slack';

const linux = process.platform === 'linux' ? test : test.skip;

linux('a value set is the value read back; 0 is taken as 1 ns, not as the kernel\'s "default"', () => {
  const before = timerSlackNs();
  expect(before).not.toBeNull();
  try {
    expect(setTimerSlackNs(1234)).toBe(true);
    expect(timerSlackNs()).toBe(1234);
    expect(setTimerSlackNs(0)).toBe(true);
    expect(timerSlackNs()).toBe(1);
  } finally {
    setTimerSlackNs(before!);
  }
  expect(timerSlackNs()).toBe(before);
});
