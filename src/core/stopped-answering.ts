/**
 * "The server stopped answering": said once, the same way, by every run kind's summary, its stored
 * record and the report. A load tester that keeps its clock running against a silent server would
 * otherwise report timeouts as throughput and the few early answers as its latency.
 *
 * Judged from what the run saw, not from a fixed rate: requests due after the server's last answer
 * all ended unanswered, there were several of them, and the silence lasted a while before the run
 * ended (a run stopped by the user while replies are on their way is not a silent server).
 */

/** Fewer unanswered requests than this after the last answer are a hiccup, not a stop. */
export const MIN_UNANSWERED = 5;
/** A silence shorter than this, up to the end of the run, is not judged. */
export const MIN_SILENCE_S = 1;

export interface StoppedAnswering {
  /** Units the server answered, out of `of` it was given (sent, or at least attempted). */
  answered: number;
  of: number;
  /** When it last answered, seconds after the server's run began (0 when it never did). */
  atS: number;
  /** Units due after that which ended unanswered. */
  unanswered: number;
}

export interface AnsweringSeen {
  answered: number;
  of: number;
  lastAnswerS: number | null;
  unansweredAfterLastAnswer: number;
  /** When the run stopped recording, seconds after it began. */
  endS: number;
}

/**
 * Whether a server still answers, unit by unit, in whatever time unit the caller keeps: an answer
 * moves its last answer on; a unit due after it that ends unanswered counts toward "stopped
 * answering" (one due before it timed out in its own time).
 */
export class AnswerWatch {
  answered = 0;
  /** The first answer: where an outage that began before the watch ends (an interleaved run's turns). */
  firstAnswer: number | null = null;
  lastAnswer: number | null = null;
  unansweredAfter = 0;

  /** A unit due at `due` ended at `end`, answered or not. */
  note(answered: boolean, due: number, end: number): void {
    if (answered) {
      this.answered++;
      if (this.firstAnswer === null || end < this.firstAnswer) this.firstAnswer = end;
      if (this.lastAnswer === null || end > this.lastAnswer) this.lastAnswer = end;
      this.unansweredAfter = 0;
    } else if (this.lastAnswer === null || due >= this.lastAnswer) {
      this.unansweredAfter++;
    }
  }

  /** `n` units the run's end left unanswered (cut short): each due after the last answer, or it would have had one. */
  cutShort(n: number): void {
    this.unansweredAfter += n;
  }

  /**
   * Watches of one server's stretches of a run (an interleaved run's turns), in time order, each on
   * its own clock `offset` after the first's, as one watch on the first's clock: the last answer is
   * the latest stretch's that had one, and what went unanswered after it adds up over the stretches
   * that followed.
   */
  static joined(parts: ReadonlyArray<{ watch: AnswerWatch; offset: number }>): AnswerWatch {
    const joined = new AnswerWatch();
    for (const { watch, offset } of parts) {
      joined.answered += watch.answered;
      if (watch.lastAnswer === null) {
        joined.unansweredAfter += watch.unansweredAfter;
        continue;
      }
      if (joined.firstAnswer === null && watch.firstAnswer !== null) joined.firstAnswer = watch.firstAnswer + offset;
      joined.lastAnswer = watch.lastAnswer + offset;
      joined.unansweredAfter = watch.unansweredAfter;
    }
    return joined;
  }
}

export function stoppedAnswering(seen: AnsweringSeen): StoppedAnswering | null {
  const atS = seen.lastAnswerS ?? 0;
  if (seen.unansweredAfterLastAnswer < MIN_UNANSWERED || seen.endS - atS < MIN_SILENCE_S) return null;
  return { answered: seen.answered, of: seen.of, atS: Math.round(atS * 1000) / 1000, unanswered: seen.unansweredAfterLastAnswer };
}

/** "answered 12 of 500, stopped answering at 0.24 s (488 unanswered after)". */
export function stoppedAnsweringText(s: StoppedAnswering): string {
  const when = s.answered === 0 ? 'never answered' : `stopped answering at ${s.atS.toFixed(2)} s`;
  return `answered ${s.answered} of ${s.of}, ${when} (${s.unanswered} unanswered after)`;
}

/** A stored value read back (a report of a database written by this or an earlier version). */
export function readStoppedAnswering(v: unknown): StoppedAnswering | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  const n = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : null);
  const answered = n('answered');
  const of = n('of');
  const atS = n('atS');
  const unanswered = n('unanswered');
  return answered === null || of === null || atS === null || unanswered === null ? null : { answered, of, atS, unanswered };
}

/**
 * Shards' "stopped answering" of one server as the whole test's: it stopped answering the test
 * only if it stopped answering every shard, then from the latest moment any shard last heard it.
 */
export function stoppedAnsweringAll(stops: Array<StoppedAnswering | null>): StoppedAnswering | null {
  if (stops.length === 0 || !stops.every((s): s is StoppedAnswering => s !== null)) return null;
  const total = (k: 'answered' | 'of' | 'unanswered') => stops.reduce((t, s) => t + s[k], 0);
  return { answered: total('answered'), of: total('of'), atS: Math.max(...stops.map((s) => s.atS)), unanswered: total('unanswered') };
}
