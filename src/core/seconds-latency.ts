/**
 * The latency of one server's stored seconds of a load run, read in order: each second's answered
 * (`ok`) requests, its ok cells' histograms (µs from the intended send) added; every second added
 * into the server's whole run; and in an interleaved run the seconds of one round, the server's
 * turn, added into that turn. The load report's figures and the load verdicts both read seconds
 * through this, so a second's or a turn's p50 is one number whoever asks.
 */
import { build, decodeFromCompressedBase64, type Histogram } from 'hdr-histogram-js';
import type { IntervalCell } from './load-types';
import { histogramLine, type PercentileLine } from './percentile-line';
import { UserError } from './user-error';

/** One turn of a server in an interleaved run (`load --interleave`): its seconds of one round. */
export interface TurnLatency {
  /** The round (the seconds' stored step): the turns of one round are paired. */
  round: number;
  seconds: number;
  ok: number;
  /** Latency of the turn's ok replies, all methods merged, from the turn's histograms added up; null when none. */
  p50Ms: number | null;
  p99Ms: number | null;
}

const newHistogram = (): Histogram => build({ numberOfSignificantValueDigits: 3 });

export class SecondsLatency {
  /** Every ok reply of the seconds read so far, µs from the intended send. */
  readonly whole = newHistogram();
  private readonly second = newHistogram();
  private readonly turnLatency = newHistogram();
  private readonly turns: TurnLatency[] = [];
  private turn: TurnLatency | null = null;

  /** `where`: whose seconds these are, as an unreadable histogram's error names them ("load run 3, server x"). */
  constructor(private readonly where: string) {}

  /** The next second's ok latency, in ms; `round`: the turn it belongs to in an interleaved run, else null. */
  add(second: { index: number; lengthMs: number; cells: readonly IntervalCell[] }, round: number | null): PercentileLine {
    const latency = this.second;
    latency.reset();
    let ok = 0;
    for (const c of second.cells) {
      if (c.outcome !== 'ok') continue;
      ok += c.count;
      if (c.latency !== null && c.count > 0) latency.add(this.decode(c.latency, second.index));
    }
    if (latency.totalCount > 0) this.whole.add(latency);
    if (round !== null) {
      if (this.turn?.round !== round) {
        this.endTurn();
        this.turn = { round, seconds: 0, ok: 0, p50Ms: null, p99Ms: null };
      }
      this.turn.seconds += second.lengthMs / 1000;
      this.turn.ok += ok;
      if (latency.totalCount > 0) this.turnLatency.add(latency);
    }
    return histogramLine(latency, 1000);
  }

  /** The turns read, in order, the last one ended: call once every second is read. */
  endTurns(): TurnLatency[] {
    this.endTurn();
    return this.turns;
  }

  private endTurn(): void {
    if (!this.turn) return;
    const line = histogramLine(this.turnLatency, 1000);
    this.turns.push({ ...this.turn, p50Ms: line.p50, p99Ms: line.p99 });
    this.turnLatency.reset();
    this.turn = null;
  }

  private decode(b64: string, index: number): Histogram {
    try {
      return decodeFromCompressedBase64(b64);
    } catch (err) {
      throw new UserError(`--db: ${this.where}, second ${index}: unreadable latency histogram (${(err as Error).message})`);
    }
  }
}
