/**
 * How a run was set up to be judged, as its config records it (`runs.config_json`): a bench run's
 * `--baseline`, an interleaved load run's turns (`--interleave`) and `--baseline`. Read back by the
 * report, which shows them, and by the verdicts, which pair what they say to pair.
 */
import { isObject, parseStoredJson } from './stored-json';

/** The server a bench run was recorded to be judged against (`bench --baseline`), if any. */
export function benchBaselineOf(configJson: string): string | undefined {
  const config = parseStoredJson(configJson);
  return isObject(config) && typeof config.baseline === 'string' ? config.baseline : undefined;
}

/** What an interleaved load run recorded of its turns and its baseline; both null for a run whose servers went one after another. */
export function interleavingOf(configJson: string): { turnMs: number | null; baseline: string | null } {
  const config = parseStoredJson(configJson);
  if (!isObject(config) || typeof config.turnMs !== 'number') return { turnMs: null, baseline: null };
  return { turnMs: config.turnMs, baseline: typeof config.baseline === 'string' ? config.baseline : null };
}
