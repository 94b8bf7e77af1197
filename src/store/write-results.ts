/**
 * Writing a result that is made whole in one go (a merge of shards): the results database opened,
 * written in one transaction, closed. A file this created is removed again if the opening or the
 * writing fails, so a failed write leaves nothing behind that looks like a run.
 */
import { fileAboutToBeCreated } from '../core/created-file';
import { ResultsStore } from './results';

export function writeResults<T>(file: string, write: (results: ResultsStore) => T): T {
  const created = fileAboutToBeCreated(file);
  let results: ResultsStore;
  try {
    results = ResultsStore.open(file);
  } catch (err) {
    created?.remove();
    throw err;
  }
  let written = false;
  try {
    const out = results.transaction(() => write(results));
    written = true;
    return out;
  } finally {
    // Closed before the file goes: SQLite's companions (-wal, -shm) are removed with it.
    results.close();
    if (!written) created?.remove();
  }
}
