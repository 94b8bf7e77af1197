/**
 * The wallet report model, built once from the wallet tables of a results database
 * (wallet-read.ts): per selected wallet run, each wallet's time to synced per server, every failed
 * sync, the requests a sync sent per step, and for load runs the arrivals, held wallets and block
 * notifications. Charts and tables read this model; none of them touches the database.
 */
import type { Answering } from '../core/answering';
import type { HeldReconnects } from '../core/held-reconnects';
import type { StoppedAnswering } from '../core/stopped-answering';

import type { WalletRunRow, WalletServerRow } from '../store/wallets';
import type { AbuseRecord } from '../store/abuse';
import type { SyncTotals } from '../store/read';
import type { FindMaxResult } from './load-model';

export type { WalletRunRow, WalletServerRow };

/** How the server learns of a new block: it polls its node, and that interval bounds notification latency. */
export interface PollingSetup {
  text: string | null;
  pollMs: number | null;
}

export interface WalletServerReport {
  name: string;
  record: WalletServerRow;
  polling: PollingSetup | null;
  /** A wallet bench's server: whether it answered the syncs it was given; null for a wallet load (its arrivals say it). */
  answering: Answering | null;
}

/** One wallet on one server, over the counted (non-warm-up) syncs. */
export interface WalletSyncPoint {
  server: string;
  wallet: string;
  scripts: number;
  txs: number; // the wallet's size: transactions it is known to have
  nOk: number;
  nFailed: number;
  /** Time to synced of the ok syncs (nearest-rank median, fastest, slowest); null when none was ok. */
  medianMs: number | null;
  minMs: number | null;
  maxMs: number | null;
  /** Every counted ok sync, in pass order: what verdicts between runs resample. */
  okSyncs: Array<{ pass: number; ms: number }>;
}

/** Failed syncs of one server that share an error category and the step they failed in. */
export interface FailedSyncGroup {
  server: string;
  category: string;
  step: string | null;
  counted: number;
  warmup: number;
  wallets: number;
  minTxs: number;
  maxTxs: number;
  example: string | null; // one error message of the group
}

/** Counted failed syncs of one wallet on one server with one error: a red cross at the wallet's size. */
export interface FailedSyncPoint {
  server: string;
  wallet: string;
  txs: number;
  category: string;
  step: string | null;
  count: number;
}

export type ServerSyncTotals = SyncTotals & { server: string };

/**
 * What one sync of each wallet costs on a server, per step: for every wallet the mean over its
 * counted ok syncs, summed over the wallets that had one. `busyMs` is the time at least one request
 * of the step was in flight (overlapping requests counted once).
 */
export interface StepMix {
  server: string;
  step: string;
  requests: number;
  calls: number;
  bytes: number;
  busyMs: number;
}

export type NotificationKind = 'headers' | 'scripthash';

export interface NotificationSeries {
  server: string;
  kind: NotificationKind;
  blocks: number;
  expected: number; // heard + missing: duplicates are extra messages, not expected ones
  heard: number;
  missing: number;
  duplicate: number;
  /** Latency of each first notification, from the mining call, ascending. */
  latenciesMs: number[];
}

/** Load runs: wallets arriving on schedule, timed from when they were due. */
export interface ArrivalStats {
  server: string;
  arrivals: number;
  ok: number;
  failed: number;
  fromIntendedMs: number[]; // ok arrivals: lag behind the schedule + time to synced, ascending
  lagMs: number[]; // every arrival, ascending
}

/** Load runs: what the run itself summarized of its held wallets (not derivable from the syncs). */
export interface HeldSummary {
  server: string;
  held: number | null;
  holdFailed: number | null;
  holdSeconds: number | null;
  rssPerHeldKiB: number | null;
  /** The arriving wallets' server stopped answering (stored by this version's wallet load); null otherwise or before. */
  arrivalsStoppedAnswering: StoppedAnswering | null;
  /** The server stopped answering its wallet syncs over its whole run, hold and arrivals (stored since 2026-11-29); undefined before. */
  stoppedAnswering?: StoppedAnswering | null;
  /** Held connections lost and held again, and the outages (stored by this version's wallet load); null otherwise or before. */
  reconnects: HeldReconnects | null;
}

export interface WalletRunReport {
  run: WalletRunRow;
  servers: WalletServerReport[]; // in the run's order
  totals: ServerSyncTotals[];
  points: WalletSyncPoint[];
  failures: FailedSyncGroup[];
  failedPoints: FailedSyncPoint[];
  mix: StepMix[];
  notifications: NotificationSeries[];
  arrivals: ArrivalStats[];
  held: HeldSummary[];
  /** --find-max: each server's search for the highest arrival rate within the SLO, step by step; null without one. */
  findMax: FindMaxResult[] | null;
  /** --slo-notify: each server's search for the most held wallets told of a block within the SLO; null without one. */
  findMaxHeld: HeldSearchReport[] | null;
  /** --abuse: each abused server's profile, window, fate and phases; absent or empty without one. */
  abuse?: AbuseRecord[];
}

export interface HeldSearchReport {
  server: string;
  slo: { percentile: number; thresholdMs: number; text?: string };
  steps: Array<{ step: number; held: number; wanted: number; blocks: number; p50Ms: number | null; sloValueMs: number | null; missing: number; passed: boolean; why: string }>;
  maxHeld: number | null;
  statement?: string;
}

export interface WalletReport {
  /** How the runs came to be reported: named, or picked as the latest finished of each kind and workload. */
  chosen: 'named' | 'latest';
  runs: WalletRunReport[];
  /** Every server name of the selected runs, first seen first. */
  servers: string[];
  /** The whole report's colour order (src/report/colours.ts); absent: `servers`' own order. */
  colourOrder?: string[];
}
