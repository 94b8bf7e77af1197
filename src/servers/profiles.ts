/**
 * What we know about each Electrum server implementation: default ports, how many calls it takes
 * in one JSON-RPC batch, and how its limit errors map onto our error categories.
 */
import { ElectrumError } from '../electrum/errors';
import type { ErrorCategory } from '../core/outcomes';
import type { RestHistoryPaging } from '../core/rest-history-paging';

export const PROFILE_NAMES = ['electrumx', 'electrs', 'esplora', 'esplora-rest', 'mempool-electrs', 'mempool-electrs-rest', 'fulcrum', 'generic'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

interface ErrorRule {
  category: ErrorCategory;
  code?: number;
  message?: RegExp;
}

/**
 * How calls reach the server: the Electrum protocol (TCP/TLS), the same over WebSocket, or
 * Esplora's HTTP REST API; each with the scheme its addresses are written in (tcp:// or ssl://,
 * ws:// or wss://, http:// or https://). A profile names the transport of its plain addresses; an
 * address written ws:// or wss:// is over WebSocket whatever the profile (src/transports/registry.ts).
 * The rest of a transport is src/transports/; its scheme is kept here, with the profiles, because
 * src/servers/targets.ts parses and writes addresses and must not reach up to the transports' sockets.
 */
export const TRANSPORT_SCHEMES = { electrum: 'tcp', websocket: 'ws', 'esplora-rest': 'http' } as const;
export type TransportName = keyof typeof TRANSPORT_SCHEMES;
export type UrlScheme = (typeof TRANSPORT_SCHEMES)[TransportName];
/** How tables name a transport's calls (kept here for the report, which reads no transport's sockets). */
export const TRANSPORT_LABELS = { electrum: 'Electrum', websocket: 'WebSocket', 'esplora-rest': 'REST' } as const;

export interface ServerProfile {
  name: ProfileName;
  transport: TransportName;
  defaultPort: number;
  defaultTlsPort: number;
  /** Largest number of calls sent in one batch; 1 = the server takes no batches. */
  batchCap: number;
  rules: ErrorRule[];
  /**
   * A server that refuses large histories by answering as if the address were empty (no error):
   * such an empty answer for an address with at least `minHistory` confirmed transactions is its
   * limit at work (history-too-large); below that, no setting of the server can explain it.
   */
  silentHistoryLimit?: { minHistory: number; setting: string };
  /** How its REST API pages a history (profiles of the esplora-rest transport only). */
  restHistory?: RestHistoryPaging;
  /** A REST profile's server as measured over the Electrum protocol: the report sets the two side by side. */
  restOf?: ProfileName;
}

// Shared by every profile: aiorpcx-style busy/cost codes are also used by Fulcrum.
const COMMON_RULES: ErrorRule[] = [
  { category: 'throttled', code: -101 }, // "excessive resource usage"
  { category: 'throttled', code: -102 }, // "server busy - request timed out"
  { category: 'throttled', message: /excessive resource|rate.?limit|too many requests|throttl|server busy/i },
  { category: 'history-too-large', message: /history too large|too many history entries|too many txs|max_history|history.*(exceeds|limit)/i },
];

export const PROFILES: Record<ProfileName, ServerProfile> = {
  electrumx: {
    name: 'electrumx',
    transport: 'electrum',
    defaultPort: 50001,
    defaultTlsPort: 50002,
    batchCap: 100,
    // session.py: RPC_ERROR_HISTORY_TOO_LONG = 10001, "history too large" (bounded by MAX_SEND).
    rules: [{ category: 'history-too-large', code: 10001 }, ...COMMON_RULES],
  },
  electrs: {
    name: 'electrs',
    transport: 'electrum',
    defaultPort: 50001,
    defaultTlsPort: 50002,
    batchCap: 100,
    rules: [{ category: 'history-too-large', message: /lookup limit|txs limit/i }, ...COMMON_RULES],
  },
  esplora: {
    // Blockstream's electrs fork: `--electrum-txs-limit` answers "Too many history entries".
    name: 'esplora',
    transport: 'electrum',
    defaultPort: 50001,
    defaultTlsPort: 50002,
    batchCap: 20,
    rules: [{ category: 'history-too-large', message: /too many history entries/i }, ...COMMON_RULES],
  },
  'esplora-rest': {
    // Esplora's HTTP API (`--http-addr`; 3000 is its mainnet default). Errors are plain-text HTTP
    // 400 bodies: "Too many history entries" (--electrum-txs-limit) and "Too many txs" (--utxos-limit).
    name: 'esplora-rest',
    transport: 'esplora-rest',
    defaultPort: 3000,
    defaultTlsPort: 443,
    batchCap: 1,
    rules: [{ category: 'history-too-large', message: /too many (history entries|txs|utxos)/i }, ...COMMON_RULES],
    // src/rest.rs: the first `/txs` page is up to 50 mempool transactions and then 25 confirmed ones.
    restHistory: { firstPage: { counts: 'confirmed', full: 25 }, chainPage: 25 },
    restOf: 'esplora',
  },
  'mempool-electrs': {
    // mempool.space's fork of Blockstream's electrs (server.version "mempool-electrs 3.1.0-dev"),
    // protocol 1.4 only. A method's own errors are bare JSON strings (src/errors.rs): `--electrum-txs-limit`
    // answers "Too many history transactions (>500) …", `--utxos-limit` "Too many unspent transaction
    // outputs (>500) …"; a method it lacks (blockchain.scripthash.get_mempool) is an error object,
    // code 1, "METHOD RPC error: unknown method …" (src/electrum/server.rs, handle_value).
    name: 'mempool-electrs',
    transport: 'electrum',
    defaultPort: 50001,
    defaultTlsPort: 50002,
    batchCap: 20,
    rules: [
      { category: 'history-too-large', message: /too many (history transactions|unspent transaction outputs)/i },
      { category: 'unsupported', code: 1, message: /RPC error: unknown method/ },
      ...COMMON_RULES,
    ],
  },
  'mempool-electrs-rest': {
    // Its REST API: Blockstream's, paged otherwise (src/rest.rs): the first `/txs` page holds up to
    // 50 entries in all (`--rest-default-max-mempool-txs`), the mempool's and then confirmed ones to
    // fill it, and `/txs/chain` pages 25 (`--rest-default-chain-txs-per-page`). Its pages come back
    // in no fixed order (rayon's par_bridge), which the REST client allows for.
    name: 'mempool-electrs-rest',
    transport: 'esplora-rest',
    defaultPort: 3000,
    defaultTlsPort: 443,
    batchCap: 1,
    rules: [{ category: 'history-too-large', message: /too many (history transactions|unspent transaction outputs)/i }, ...COMMON_RULES],
    restHistory: { firstPage: { counts: 'entries', full: 50 }, chainPage: 25 },
    restOf: 'mempool-electrs',
  },
  fulcrum: {
    name: 'fulcrum',
    transport: 'electrum',
    defaultPort: 50001,
    defaultTlsPort: 50002,
    batchCap: 345,
    rules: [{ category: 'history-too-large', message: /max_history|history.*too large/i }, ...COMMON_RULES],
    // Above max_history (default 125,000, at least 1,000) Fulcrum 2.1 answers get_history and
    // listunspent with [] and get_balance with zeros.
    silentHistoryLimit: { minHistory: 1000, setting: 'max_history' },
  },
  generic: {
    name: 'generic',
    transport: 'electrum',
    defaultPort: 50001,
    defaultTlsPort: 50002,
    batchCap: 20,
    rules: COMMON_RULES,
  },
};

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}

export function urlScheme(profile: ProfileName): UrlScheme {
  return TRANSPORT_SCHEMES[PROFILES[profile].transport];
}

/**
 * Re-files a server's JSON-RPC error under the profile's category. Timeouts, disconnects and
 * protocol breaks are already what they are and pass through.
 */
export function classify(profile: ServerProfile, err: ElectrumError): ElectrumError {
  if (err.category !== 'server-error') return err;
  for (const rule of profile.rules) {
    const codeOk = rule.code === undefined || rule.code === err.code;
    const messageOk = rule.message === undefined || rule.message.test(err.message);
    if (codeOk && messageOk) return new ElectrumError(rule.category, err.message, err.code);
  }
  return err;
}
