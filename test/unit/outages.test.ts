/**
 * The outage log's rule: a closed connection alone is a suspicion, confirmed only when no
 * connection was usable at all; the first answer ends the outage (or clears the suspicion); one
 * still open at the end has no end.
 */
import { OutageLog, outageText, readOutages } from '../../src/core/outages';

const s = (x: number) => x * 1e9;

test('one socket closed while the others answer is no outage', () => {
  const log = new OutageLog();
  log.gone(s(1), false);
  log.answered(s(1.01));
  expect(log.outages(0)).toEqual([]);
});

test('confirmed by a request that found no usable connection: from the first failure to the first answer', () => {
  const log = new OutageLog();
  log.answered(s(0.5));
  log.gone(s(3.2), false);
  log.gone(s(3.3), true);
  log.gone(s(4), true);
  log.answered(s(5.9));
  log.answered(s(6));
  const [o, ...rest] = log.outages(1_000_000);
  expect(rest).toEqual([]);
  expect(o).toEqual({ startS: 3.2, endS: 5.9, startMs: 1_003_200, endMs: 1_005_900 });
  expect(outageText(o)).toBe('outage 3.2 s → 5.9 s (2.7 s)');
});

test('an outage still open at the end says so', () => {
  const log = new OutageLog();
  log.gone(s(2), true);
  const [o] = log.outages(0);
  expect(o.endS).toBeNull();
  expect(o.endMs).toBeNull();
  expect(outageText(o)).toBe('outage 2.0 s → still down at the end');
});

test('stored outages read back; malformed entries are left out', () => {
  expect(readOutages([{ startS: 1, endS: 2, startMs: 10, endMs: 20 }, { startS: 'x' }, null])).toEqual([{ startS: 1, endS: 2, startMs: 10, endMs: 20 }]);
  expect(readOutages(undefined)).toEqual([]);
});
