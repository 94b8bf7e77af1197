/**
 * The outage log's rule: a closed connection alone is a suspicion, confirmed only when no
 * connection was usable at all; the first answer ends the outage (or clears the suspicion); one
 * still open at the end has no end. A server's turns of an interleaved run are joined by the same
 * rule, and so is whether it stopped answering.
 */
import { OutageLog, outageText, readOutages } from '../../../src/core/outages';
import { AnswerWatch, stoppedAnswering } from '../../../src/core/stopped-answering';

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

describe("one server's turns of an interleaved run, joined on its first turn's clock", () => {
  /** A turn's log and when it first heard an answer, `offset` s after the first turn began. */
  const turn = (offset: number, events: Array<['gone' | 'answered', number]>) => {
    const log = new OutageLog();
    let first: number | null = null;
    for (const [what, at] of events) {
      if (what === 'gone') log.gone(s(at), true);
      else {
        log.answered(s(at));
        first ??= s(at);
      }
    }
    return { log, offsetNs: s(offset), firstAnswerNs: first };
  };

  test('outages within turns keep their own spans, moved to the first turn\'s clock', () => {
    const joined = OutageLog.joined([turn(0, [['answered', 0.1], ['gone', 0.5], ['answered', 0.8]]), turn(10, [['answered', 0.1], ['gone', 2], ['answered', 3]])]);
    expect(joined.outages(0).map((o) => [o.startS, o.endS])).toEqual([[0.5, 0.8], [12, 13]]);
  });

  test('an outage open when a turn ended lasts until the next answer in a later turn, across a turn with none', () => {
    const joined = OutageLog.joined([
      turn(0, [['answered', 0.1], ['gone', 4]]),
      turn(10, [['gone', 0.01]]), // never answered: still down
      turn(20, [['gone', 0.01], ['answered', 1.5], ['gone', 3], ['answered', 3.2]]),
    ]);
    expect(joined.outages(0).map((o) => [o.startS, o.endS])).toEqual([[4, 21.5], [23, 23.2]]);
    expect(joined.down).toBe(false);
  });

  test('the next turn answering from its start ends it at that first answer; one still open at the end has no end', () => {
    const joined = OutageLog.joined([turn(0, [['gone', 4.5]]), turn(10, [['answered', 0.02]]), turn(20, [['answered', 0.1], ['gone', 4]])]);
    expect(joined.outages(1000).map((o) => [o.startS, o.endS])).toEqual([[4.5, 10.02], [24, null]]);
    expect(joined.down).toBe(true);
  });

  test('stopped answering: judged after the last turn that had an answer, counting what every later turn left unanswered', () => {
    const watch = (events: Array<[boolean, number]>) => {
      const w = new AnswerWatch();
      for (const [answered, at] of events) w.note(answered, s(at), s(at + 0.01));
      return w;
    };
    const turns = [
      { watch: watch([[true, 0.1], [true, 0.5], [false, 0.9]]), offset: 0 },
      { watch: watch([[true, 0.2], [false, 0.6], [false, 0.7]]), offset: s(10) },
      { watch: watch([[false, 0.1], [false, 0.2], [false, 0.3]]), offset: s(20) },
    ];
    const joined = AnswerWatch.joined(turns);
    expect(joined.answered).toBe(3);
    expect(joined.firstAnswer).toBeCloseTo(s(0.11), -3);
    expect(joined.lastAnswer).toBeCloseTo(s(10.21), -3);
    expect(joined.unansweredAfter).toBe(2 + 3);
    expect(stoppedAnswering({ answered: 3, of: 9, lastAnswerS: joined.lastAnswer! / 1e9, unansweredAfterLastAnswer: joined.unansweredAfter, endS: 21 })).toEqual({
      answered: 3,
      of: 9,
      atS: 10.21,
      unanswered: 5,
    });
    // A last turn that answered again: the server did not stop.
    expect(AnswerWatch.joined([...turns, { watch: watch([[true, 0.1]]), offset: s(30) }]).unansweredAfter).toBe(0);
  });
});
