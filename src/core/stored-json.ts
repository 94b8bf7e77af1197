/**
 * The JSON annotations runs store beside their rows (config, summaries, setups), read for the
 * report and the verdicts: an unreadable one is shown as absent, never fatal to either.
 */
export function parseStoredJson(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
