/**
 * What one server's load looks like, one second at a time, in bounded memory: per (method, outcome)
 * an HdrHistogram of latency from the intended send and one of service time, plus counters; the
 * generator's scheduling lag in a histogram of its own. A request is recorded once, in the
 * interval's bank (three histogram records); the run's totals add each closed bank, so intervals
 * and totals hold the same requests and memory does not grow with the run.
 *
 * Closing an interval must not stall the schedule: encoding one histogram takes ~0.2 ms, and a
 * second holds a dozen. So two banks alternate: at each second the full bank is swapped out and
 * encoded one histogram per step, each step in a moment the pacer can spare (no answer in flight,
 * the next send not due yet: spare-time.ts), then reset for reuse two seconds later.
 */
import * as hdr from 'hdr-histogram-js';
import type { MethodName } from '../../core/methods';
import { histogramLine } from '../../core/percentile-line';
import type { IntervalCell, IntervalRecord, LoadOutcome } from '../../core/load-types';
import { isAnswered } from '../../core/outcomes';
import { AnswerWatch } from '../../core/stopped-answering';
import { GeneratorTally } from '../../core/generator-check';
import { OutageLog } from '../../core/outages';
import type { RequestSink } from './request-sink';
import { spareMoment } from '../../core/spare-time';

/** Integer µs, 3 significant digits, as the issue and HdrHistogram's tools expect. */
export function newHistogram(): hdr.Histogram {
  return hdr.build({ numberOfSignificantValueDigits: 3, bitBucketSize: 32, autoResize: true });
}

/**
 * Histograms added up into a new one: how the shards' seconds of one test (merge-intervals.ts)
 * and a server's turns of an interleaved run (src/engine/merge-turns.ts) are summed.
 */
export function sumOf(parts: Iterable<hdr.Histogram>): hdr.Histogram {
  const sum = newHistogram();
  for (const p of parts) sum.add(p);
  return sum;
}

interface Cell<M extends string> {
  method: M;
  outcome: LoadOutcome;
  count: number;
  bytes: number;
  latency: hdr.Histogram;
  service: hdr.Histogram;
}

class Bank<M extends string> {
  /** Cells in the order they first appeared, and by method then outcome (no key string per request). */
  readonly cells: Cell<M>[] = [];
  private readonly byMethod = new Map<M, Map<LoadOutcome, Cell<M>>>();
  sent = 0;
  dropped = 0;
  ok = 0;
  errors = 0;
  answered = 0;
  readonly lag = newHistogram();
  /** ok latency across methods, for the live console line (filled at the close). */
  readonly live = newHistogram();

  cell(method: M, outcome: LoadOutcome): Cell<M> {
    let outcomes = this.byMethod.get(method);
    if (!outcomes) this.byMethod.set(method, (outcomes = new Map()));
    let c = outcomes.get(outcome);
    if (!c) {
      outcomes.set(outcome, (c = { method, outcome, count: 0, bytes: 0, latency: newHistogram(), service: newHistogram() }));
      this.cells.push(c);
    }
    return c;
  }

  reset(): void {
    for (const c of this.cells) {
      c.count = 0;
      c.bytes = 0;
      c.latency.reset();
      c.service.reset();
    }
    this.sent = this.dropped = this.ok = this.errors = this.answered = 0;
    this.lag.reset();
    this.live.reset();
  }
}

export interface Totals<M extends string = MethodName> {
  sent: number;
  dropped: number;
  byOutcome: Map<string, number>; // outcome → count
  latency: hdr.Histogram; // ok calls, from the intended send, µs
  service: hdr.Histogram; // ok calls, from the actual write, µs
  lag: hdr.Histogram; // actual − intended send, µs
  bytes: number;
  perMethod: Map<M, { ok: number; errors: number; latency: hdr.Histogram }>;
  /** Sent, and still awaiting a reply (or its timeout) when the run ended: cut short by our own close. */
  cutShort: number;
  /** Due by the schedule, never sent because the run stopped first (open model). */
  notSent: number;
  /** Whether the server still answers (ns on the run's clock): its last answer, and the requests due after it that ended unanswered (timeout, disconnect, cut short). */
  answers: AnswerWatch;
  /** When recording stopped (ns on the run's clock), null while it goes on. */
  endNs: number | null;
  /** Requests judged for the generator check: sent late by more than a material share of their latency. */
  generator: GeneratorTally;
  /** When the server was gone (src/core/outages.ts), on the run's clock. */
  outages: OutageLog;
}

export interface LiveCounts {
  ok: number;
  errors: number;
  /** Replies of any kind, error replies included; not timeouts or closed connections. */
  answered: number;
  dropped: number;
  sent: number;
  p50Us: number | null;
  p99Us: number | null;
}

/** The HDR-intervals sink: what `load` stores second by second and sums into its summary. */
export class IntervalRecorder<M extends string = MethodName> implements RequestSink<M> {
  private current = new Bank<M>();
  private spare = new Bank<M>();
  readonly totals: Totals<M> = {
    sent: 0,
    dropped: 0,
    byOutcome: new Map(),
    latency: newHistogram(),
    service: newHistogram(),
    lag: newHistogram(),
    bytes: 0,
    perMethod: new Map(),
    cutShort: 0,
    notSent: 0,
    answers: new AnswerWatch(),
    endNs: null,
    generator: new GeneratorTally(),
    outages: new OutageLog(),
  };

  private frozen = false;
  /** Calls created and not yet ended: at the freeze, what the run cuts short. */
  private open = 0;
  /**
   * Sends written at or after the end of the second being recorded, before its close: the next
   * second's. The runner closes a second on a timer, a loop turn after its end, and a schedule's
   * send due on the whole second (every one at a whole rate) is written in a turn before that.
   */
  private readonly early = { sent: 0, lag: newHistogram() };

  /**
   * `secondEndNs`: the end of the first second on the run's clock when each close ends a second of
   * it (the runner's), so that a send is counted in the second it was written in; Infinity where
   * closes keep no such clock.
   */
  constructor(
    readonly server: string,
    private secondEndNs = Infinity,
  ) {}

  /** Records nothing more: what completes after the run's last interval is not part of it. */
  freeze(nowNs: number | null = null): void {
    if (this.frozen) return;
    this.frozen = true;
    this.totals.endNs = nowNs;
    this.totals.cutShort = this.open;
    this.totals.answers.cutShort(this.open);
  }

  /** A call was created (queued on a connection): it ends in `completed` or is cut short. */
  opened(): void {
    if (!this.frozen) this.open++;
  }

  /** The run stopped with `n` requests of its schedule still to come. */
  notSent(n: number): void {
    this.totals.notSent += n;
  }

  /** A request went out `lagUs` after its intended time, at `atNs` on the run's clock. */
  sentOne(lagUs: number, atNs?: number): void {
    if (this.frozen) return;
    const counted = atNs !== undefined && atNs >= this.secondEndNs ? this.early : this.current;
    counted.sent++;
    counted.lag.recordValue(lagUs > 0 ? Math.round(lagUs) : 0);
  }

  /** The sends held for the second after the one recorded, added to `bank`. */
  private takeEarly(bank: Bank<M>): void {
    if (this.early.sent === 0) return;
    bank.sent += this.early.sent;
    bank.lag.add(this.early.lag);
    this.early.sent = 0;
    this.early.lag.reset();
  }

  /** A unit went out with no schedule to be late against (a sequential plan's calls): counted, no lag. */
  sentUnscheduled(): void {
    if (!this.frozen) this.current.sent++;
  }

  droppedOne(method: M): void {
    if (this.frozen) return;
    this.current.dropped++;
    this.current.cell(method, 'dropped').count++;
  }

  /**
   * A reply (or failure) for a request sent at `intendedNs`, written at `actualNs`, ended at
   * `endNs`: ns on the run's clock (hrtime since its start, as plain numbers).
   */
  completed(method: M, outcome: LoadOutcome, intendedNs: number, actualNs: number, endNs: number, bytes: number, wasOpened = true): void {
    if (this.frozen) return;
    if (wasOpened) this.open--;
    // One no connection took was refused for want of any usable connection: the server is gone.
    if (outcome === 'disconnect') this.totals.outages.gone(endNs, !wasOpened);
    this.noteAnswer(outcome, intendedNs, endNs);
    // Written before it ended: its lag is the generator's own part of its latency.
    if (wasOpened && actualNs < endNs) this.totals.generator.note((actualNs - intendedNs) / 1e6, (endNs - intendedNs) / 1e6);
    const latencyUs = endNs > intendedNs ? (endNs - intendedNs) / 1000 : 0;
    const serviceUs = endNs > actualNs ? (endNs - actualNs) / 1000 : 0;
    const b = this.current;
    const c = b.cell(method, outcome);
    c.count++;
    c.bytes += bytes;
    c.latency.recordValue(latencyUs);
    c.service.recordValue(serviceUs);
    if (outcome === 'ok') b.ok++;
    else b.errors++;
  }

  /**
   * Whether the server is still answering: a reply moves the last answer on; an unanswered request
   * due after it counts toward "stopped answering" (one due before it timed out in its own time).
   */
  private noteAnswer(outcome: LoadOutcome, intendedNs: number, endNs: number): void {
    const t = this.totals;
    const answered = isAnswered(outcome);
    if (answered) {
      t.outages.answered(endNs);
      this.current.answered++;
    }
    t.answers.note(answered, intendedNs, endNs);
  }

  /**
   * Adds a closed bank to the run's totals (before the bank is reused), a cell per spare moment:
   * adding a histogram takes ~50 µs, and a bank holds a dozen.
   */
  private async addToTotals(bank: Bank<M>): Promise<void> {
    const t = this.totals;
    t.sent += bank.sent;
    t.dropped += bank.dropped;
    t.lag.add(bank.lag);
    for (const c of bank.cells) {
      if (c.count === 0) continue;
      t.byOutcome.set(c.outcome, (t.byOutcome.get(c.outcome) ?? 0) + c.count);
      if (c.outcome === 'dropped') continue;
      t.bytes += c.bytes;
      let pm = t.perMethod.get(c.method);
      if (!pm) t.perMethod.set(c.method, (pm = { ok: 0, errors: 0, latency: newHistogram() }));
      if (c.outcome === 'ok') {
        await spareMoment();
        t.latency.add(c.latency);
        t.service.add(c.service);
        pm.ok += c.count;
        pm.latency.add(c.latency);
      } else {
        pm.errors += c.count;
      }
    }
  }

  /**
   * Closes the interval: the bank in use is swapped for the spare at once (so requests keep being
   * recorded), then encoded a histogram per spare moment (spare-time.ts). Resolves with the interval's record and
   * its live counts. The run's last interval (`last`) has no second after it: the sends written
   * past its second's end are its own.
   */
  async close(
    index: number,
    startMs: number,
    lengthMs: number,
    context: { targetRate: number | null; vus: number | null; inFlight: number; loopDelayP99Us: number },
    last = false,
  ): Promise<{ record: IntervalRecord<M>; live: LiveCounts }> {
    const bank = this.current;
    if (last) this.takeEarly(bank);
    this.current = this.spare;
    this.spare = bank;
    this.secondEndNs += 1e9;
    this.takeEarly(this.current);
    await spareMoment();
    for (const c of bank.cells) if (c.outcome === 'ok' && c.count > 0) bank.live.add(c.latency);
    const line = histogramLine(bank.live);
    const live: LiveCounts = {
      ok: bank.ok,
      errors: bank.errors,
      answered: bank.answered,
      dropped: bank.dropped,
      sent: bank.sent,
      p50Us: line.p50,
      p99Us: line.p99,
    };
    const cells: IntervalCell<M>[] = [];
    for (const c of bank.cells) {
      if (c.count === 0) continue;
      const timed = c.outcome !== 'dropped';
      let latency: string | null = null;
      let service: string | null = null;
      if (timed) {
        await spareMoment();
        latency = hdr.encodeIntoCompressedBase64(c.latency);
        await spareMoment();
        service = hdr.encodeIntoCompressedBase64(c.service);
      }
      cells.push({ method: c.method, outcome: c.outcome, count: c.count, bytes: c.bytes, latency, service });
    }
    await spareMoment();
    const lag = bank.lag.totalCount > 0 ? hdr.encodeIntoCompressedBase64(bank.lag) : null;
    const record: IntervalRecord<M> = {
      server: this.server,
      index,
      startMs,
      lengthMs,
      targetRate: context.targetRate,
      vus: context.vus,
      sent: bank.sent,
      dropped: bank.dropped,
      inFlight: context.inFlight,
      lag,
      loopDelayP99Us: context.loopDelayP99Us,
      cells,
    };
    await spareMoment();
    await this.addToTotals(bank);
    bank.reset();
    return { record, live };
  }
}
