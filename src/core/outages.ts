/**
 * "The server was gone from a to b": an outage as every run kind records, stores, prints and
 * reports it. It begins with the first unit that failed because the server was gone (its
 * connection closed under it, or none could be opened) after the server's last answer, and ends
 * with the first answer after that; one still open when the run ended has no end.
 *
 * A connection closed under a request is only a suspicion: a server may close one socket of many
 * (a limit, a timeout's replacement) while answering on the others. The span counts as an outage
 * once something confirms that the server as a whole was unreachable (no connection usable, a
 * connection attempt refused); an answer before that clears the suspicion.
 */

export interface Outage {
  /** Seconds after the server's run began. */
  startS: number;
  /** Null: still down when the run ended. */
  endS: number | null;
  /** The same moments, epoch ms. */
  startMs: number;
  endMs: number | null;
}

/** Spans of a run's clock (ns as plain numbers), turned into Outages at the end. */
export class OutageLog {
  private suspectNs: number | null = null;
  private confirmed = false;
  private readonly spans: Array<{ startNs: number; endNs: number | null }> = [];

  /** A unit failed at `atNs` because the server was gone; `confirmed` when the server as a whole was. */
  gone(atNs: number, confirmed: boolean): void {
    this.suspectNs ??= atNs;
    if (confirmed) this.confirmed = true;
  }

  /** The server answered at `atNs`: an outage in course ends here. */
  answered(atNs: number): void {
    if (this.suspectNs === null) return;
    if (this.confirmed) this.spans.push({ startNs: this.suspectNs, endNs: Math.max(atNs, this.suspectNs) });
    this.suspectNs = null;
    this.confirmed = false;
  }

  get down(): boolean {
    return this.suspectNs !== null && this.confirmed;
  }

  /**
   * Logs of one server's stretches of a run (an interleaved run's turns: in between, the server
   * was not asked anything), in time order, each on its own clock `offsetNs` after the first's, as
   * one log on the first's clock. An outage still open when a stretch ended goes on until the
   * server's first answer in a later stretch (joined with an outage that stretch found before that
   * answer, which is the same one), or to the end, still open.
   */
  static joined(parts: ReadonlyArray<{ log: OutageLog; offsetNs: number; firstAnswerNs: number | null }>): OutageLog {
    const joined = new OutageLog();
    let openSinceNs: number | null = null;
    for (const { log, offsetNs, firstAnswerNs } of parts) {
      const spans = log.down ? [...log.spans, { startNs: log.suspectNs!, endNs: null }] : log.spans;
      let i = 0;
      if (openSinceNs !== null) {
        // Not answered in this stretch at all: still down.
        if (firstAnswerNs === null) continue;
        const first = spans[0];
        if (first && first.startNs <= firstAnswerNs) {
          if (first.endNs === null) continue;
          joined.spans.push({ startNs: openSinceNs, endNs: first.endNs + offsetNs });
          i = 1;
        } else {
          joined.spans.push({ startNs: openSinceNs, endNs: firstAnswerNs + offsetNs });
        }
        openSinceNs = null;
      }
      for (; i < spans.length; i++) {
        const s = spans[i];
        if (s.endNs === null) openSinceNs = s.startNs + offsetNs;
        else joined.spans.push({ startNs: s.startNs + offsetNs, endNs: s.endNs + offsetNs });
      }
    }
    if (openSinceNs !== null) {
      joined.suspectNs = openSinceNs;
      joined.confirmed = true;
    }
    return joined;
  }

  /** Every outage, the one still open (if confirmed) last with no end; `originMs` is the clock's 0 in epoch ms. */
  outages(originMs: number): Outage[] {
    const spans = this.down ? [...this.spans, { startNs: this.suspectNs!, endNs: null }] : this.spans;
    return spans.map((s) => outageAt(originMs, s.startNs / 1e6, s.endNs === null ? null : s.endNs / 1e6));
  }
}

/** An outage from ms offsets on a clock whose 0 is `originMs` (epoch). */
export function outageAt(originMs: number, startOffsetMs: number, endOffsetMs: number | null): Outage {
  return {
    startS: round3(startOffsetMs / 1000),
    endS: endOffsetMs === null ? null : round3(endOffsetMs / 1000),
    startMs: Math.round(originMs + startOffsetMs),
    endMs: endOffsetMs === null ? null : Math.round(originMs + endOffsetMs),
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** "outage 3.2 s → 5.9 s (2.7 s)", or "outage 3.2 s → still down at the end". */
export function outageText(o: Outage): string {
  if (o.endS === null) return `outage ${o.startS.toFixed(1)} s → still down at the end`;
  return `outage ${o.startS.toFixed(1)} s → ${o.endS.toFixed(1)} s (${(o.endS - o.startS).toFixed(1)} s)`;
}

/** Stored outages read back; anything unreadable is left out (a database of an earlier version has none). */
export function readOutages(v: unknown): Outage[] {
  if (!Array.isArray(v)) return [];
  const out: Outage[] = [];
  for (const x of v) {
    if (typeof x !== 'object' || x === null) continue;
    const o = x as Record<string, unknown>;
    const num = (k: string) => (typeof o[k] === 'number' ? (o[k] as number) : null);
    const startS = num('startS');
    const startMs = num('startMs');
    if (startS === null || startMs === null) continue;
    out.push({ startS, endS: num('endS'), startMs, endMs: num('endMs') });
  }
  return out;
}

/**
 * The shards' outages of one server as one list: those that overlap are one outage, from the
 * first shard that found the server gone to the last that heard from it again. Joined on the epoch
 * times, and their seconds counted again from the earliest shard's start: shards started without
 * --start-at each count from their own.
 */
export function unionOfOutages(all: Outage[]): Outage[] {
  const joined: Array<{ startMs: number; endMs: number | null }> = [];
  for (const o of [...all].sort((a, b) => a.startMs - b.startMs)) {
    const last = joined.at(-1);
    if (last && (last.endMs === null || o.startMs <= last.endMs)) {
      if (last.endMs !== null && (o.endMs === null || o.endMs > last.endMs)) last.endMs = o.endMs;
    } else joined.push({ startMs: o.startMs, endMs: o.endMs });
  }
  const originMs = Math.min(...all.map((o) => Math.round(o.startMs - 1000 * o.startS)));
  return joined.map((o) => outageAt(originMs, o.startMs - originMs, o.endMs === null ? null : o.endMs - originMs));
}
