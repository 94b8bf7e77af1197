/**
 * The bench's per-sample rows: every call's one sample into the run's `samples` table (which a
 * resumed run reads back to skip what was measured), written in batches between calls so a
 * write never stalls a call being timed.
 */
import type { ResultsStore, SampleRow } from '../../store/results';
import type { UnitSink } from './unit-sink';

export class SampleRows implements UnitSink<SampleRow> {
  constructor(private readonly store: ResultsStore) {}

  record(sample: SampleRow): void {
    this.store.add(sample);
    if (this.store.flushDue) this.store.flush();
  }
}
