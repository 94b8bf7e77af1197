/**
 * The limits each server implementation sets by default, as its configuration states them (source
 * `configured`): what the pre-flight doctor plans against when nothing better is known. A server
 * configured otherwise (the lab's, or one an operator tuned) states its own through the same
 * builders, given its settings; what `limits` measures on a server outranks both
 * (src/runs/doctor.ts). docs/doctor.md lists them with where each comes from.
 */
import type { LimitFinding } from '../core/server-limits';
import type { ProfileName } from './profiles';

/** A server's settings as its configuration writes them (a config key, an environment variable, a --flag). */
export type Settings = Readonly<Record<string, string | undefined>>;

/** Fulcrum's own defaults (doc/fulcrum-example-config.conf), for the settings the doctor reads. */
export const FULCRUM_DEFAULTS = { max_clients_per_ip: '12', subnets_to_exclude_from_per_ip_limits: '127.0.0.1/32, ::1/128', max_history: '125000', max_batch: '345' };

/** ElectrumX 2.0's defaults (server/env.py, lib/coins.py) for the settings the doctor reads. */
export const ELECTRUMX_DEFAULTS = { MAX_SESSIONS: '1000', MAX_SEND: '8100000' };

/** Blockstream's electrs (Esplora) defaults for its --flags the doctor reads. */
export const ESPLORA_DEFAULTS = { 'electrum-txs-limit': '500', 'utxos-limit': '500' };

/**
 * How a finding names its setting and where its value comes from: `settings` when they set it
 * (`where` names them, e.g. "the lab's fulcrum.conf"), else the server's default.
 */
function origin(setting: string, settings: Settings, where: string, server: string, shown = setting): string {
  return `${shown}, ${settings[setting] === undefined ? `${server}'s default` : where}`;
}

function configured(limit: LimitFinding['limit'], value: number, past: LimitFinding['past'], note: string, extra: Partial<LimitFinding> = {}): LimitFinding {
  return { limit, value, triedUpTo: value, past, recoveryMs: null, source: 'configured', note, ...extra };
}

/** A whole number a setting holds, or null when it is unset, empty or not a number. */
function whole(text: string | undefined): number | null {
  if (text === undefined || text.trim() === '') return null;
  const n = Number(text.trim());
  return Number.isSafeInteger(n) ? n : null;
}

/**
 * Fulcrum: connections per source address (max_clients_per_ip; 0 or empty turns it off; the
 * subnets of subnets_to_exclude_from_per_ip_limits are exempt) and the largest history it serves
 * (max_history; above it get_history and listunspent answer [], with no error), and the calls in
 * one JSON batch (max_batch; past it error 4 "Batch limit exceeded", as `limits` measured: docs/limits.md).
 */
export function fulcrumLimits(settings: Settings, where: string): LimitFinding[] {
  const out: LimitFinding[] = [];
  const perIp = whole(settings.max_clients_per_ip ?? FULCRUM_DEFAULTS.max_clients_per_ip);
  const subnets = settings.subnets_to_exclude_from_per_ip_limits ?? FULCRUM_DEFAULTS.subnets_to_exclude_from_per_ip_limits;
  const exempt = subnets.split(',').map((s) => s.trim()).filter(Boolean);
  // Measured on the lab (2026-11-27): from 127.0.0.2 the 13th connection on was closed unanswered.
  if (perIp !== null && perIp > 0) out.push(configured('connections-per-source', perIp, { kind: 'reset' }, origin('max_clients_per_ip', settings, where, 'Fulcrum'), { exempt }));
  const history = whole(settings.max_history ?? FULCRUM_DEFAULTS.max_history);
  if (history !== null) out.push(configured('history-size', history, { kind: 'empty' }, origin('max_history', settings, where, 'Fulcrum')));
  const batch = whole(settings.max_batch ?? FULCRUM_DEFAULTS.max_batch);
  if (batch !== null) out.push(configured('batch-size', batch, { kind: 'error', code: 4, message: 'Batch limit exceeded' }, origin('max_batch', settings, where, 'Fulcrum')));
  return out;
}

/**
 * ElectrumX: sessions in all (MAX_SESSIONS: at it the server stops accepting, session.py; it also
 * lowers it to fit its open-file limit) and the largest history it serves, which follows from
 * MAX_SEND: session.py's limited_history refuses, with error 10001, a history of
 * (MAX_SEND - 100) // 99 entries or more (about 99 bytes an entry as JSON).
 */
export function electrumxLimits(settings: Settings, where: string): LimitFinding[] {
  const out: LimitFinding[] = [];
  const sessions = whole(settings.MAX_SESSIONS ?? ELECTRUMX_DEFAULTS.MAX_SESSIONS);
  if (sessions !== null) out.push(configured('connections-total', sessions, { kind: 'refused' }, `${origin('MAX_SESSIONS', settings, where, 'ElectrumX 2.0')}, lowered to fit its open-file limit`));
  const maxSend = whole(settings.MAX_SEND ?? ELECTRUMX_DEFAULTS.MAX_SEND);
  if (maxSend !== null) {
    const refusedFrom = Math.floor((Math.max(350_000, maxSend) - 100) / 99);
    out.push(configured('history-size', refusedFrom - 1, { kind: 'error', code: 10001, message: 'history too large' }, `${origin('MAX_SEND', settings, where, 'ElectrumX 2.0')}: ${maxSend} bytes`));
  }
  return out;
}

/**
 * Blockstream's electrs (Esplora): the largest history its Electrum port serves
 * (--electrum-txs-limit) and the largest UTXO set, over Electrum and REST alike (--utxos-limit);
 * measured on the lab (test/limits.test.ts): past either, the error "Too many history entries".
 * Its REST API pages histories, so only --utxos-limit applies there.
 */
export function esploraLimits(settings: Settings, where: string, over: 'electrum' | 'rest'): LimitFinding[] {
  return electrsForkLimits(settings, where, over, 'Esplora', () => 'Too many history entries');
}

/**
 * mempool's electrs (mempool.space's fork of Blockstream's): the same two --flags with the same
 * defaults (src/config.rs), and its own errors past them (src/errors.rs), as its code reads; not
 * yet measured by `limits`.
 */
export function mempoolElectrsLimits(settings: Settings, where: string, over: 'electrum' | 'rest'): LimitFinding[] {
  return electrsForkLimits(settings, where, over, 'mempool-electrs 3.1', (limit, n) =>
    limit === 'history-size' ? `Too many history transactions (>${n}). Contact support to raise limits.` : `Too many unspent transaction outputs (>${n}). Contact support to raise limits.`,
  );
}

function electrsForkLimits(settings: Settings, where: string, over: 'electrum' | 'rest', server: string, message: (limit: 'history-size' | 'utxo-count', n: number) => string): LimitFinding[] {
  const out: LimitFinding[] = [];
  const past = (limit: 'history-size' | 'utxo-count', n: number) => ({ kind: 'error', code: null, message: message(limit, n) }) as const;
  const txs = whole(settings['electrum-txs-limit'] ?? ESPLORA_DEFAULTS['electrum-txs-limit']);
  if (over === 'electrum' && txs !== null) out.push(configured('history-size', txs, past('history-size', txs), origin('electrum-txs-limit', settings, where, server, '--electrum-txs-limit')));
  const utxos = whole(settings['utxos-limit'] ?? ESPLORA_DEFAULTS['utxos-limit']);
  if (utxos !== null) out.push(configured('utxo-count', utxos, past('utxo-count', utxos), origin('utxos-limit', settings, where, server, '--utxos-limit')));
  return out;
}

/**
 * romanz's electrs: no setting, but a thread per connection; it has been reported to fail near
 * 10,000 connections (issue 39), so the value is where trouble starts, not a configured cap.
 */
export function electrsLimits(): LimitFinding[] {
  return [configured('connections-total', 10_000, { kind: 'reset' }, 'a thread per connection (electrs fails near 10,000; no setting)')];
}

/** What each profile's server does by default (no settings: `where` names none); `generic` knows nothing. */
export function knownLimits(profile: ProfileName): LimitFinding[] {
  switch (profile) {
    case 'fulcrum':
      return fulcrumLimits({}, '');
    case 'electrumx':
      return electrumxLimits({}, '');
    case 'esplora':
      return esploraLimits({}, '', 'electrum');
    case 'esplora-rest':
      return esploraLimits({}, '', 'rest');
    case 'mempool-electrs':
      return mempoolElectrsLimits({}, '', 'electrum');
    case 'mempool-electrs-rest':
      return mempoolElectrsLimits({}, '', 'rest');
    case 'electrs':
      return electrsLimits();
    case 'generic':
      return [];
  }
}
