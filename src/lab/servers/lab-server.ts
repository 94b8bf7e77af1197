/**
 * What the lab knows of one Electrum server it runs, so that the rest of the lab (and the CLI) asks
 * the server's file instead of naming it: one file per server in this folder, each listed once in
 * `registry.ts`. btcd, the adapter and Prometheus are the lab's infrastructure, not servers.
 */
import path from 'node:path';
import type { Credentials } from '../adapter/credentials';
import type { LabConfig, LabPaths, ServerSettings } from '../config';
import type { PhaseRules } from '../../indexing/phases';
import type { ProfileName } from '../../servers/profiles';
import type { LimitFinding } from '../../core/server-limits';

/** What a server is started from: the lab's settings and files, the node's credentials, its own ports on this lab. */
export interface LabContext<Slot extends string = string> {
  cfg: LabConfig;
  paths: LabPaths;
  creds: Credentials;
  ports: Record<Slot, number>;
}

/** The process a server runs as (its files are written by then). */
export interface Launch {
  command: string;
  args: string[];
  /** Absent: the lab's own environment. */
  env?: NodeJS.ProcessEnv;
}

/** How a server learns of a new block: the lab's adapter pushes nothing, so every server polls. */
export interface Polling {
  pollMs: number;
  how: string;
}

/** Questions asked of a starting server on a short-lived connection; any error means "not yet". */
export type ElectrumAsk = (calls: Array<{ method: string; params: unknown[] }>) => Promise<unknown[]>;

/**
 * Releases of a server the lab can run beside its own (`lab up --with NAME@VERSION`), on the same
 * chain, each on a slot of ports of its own (`electrum`, then `rpc`), plain TCP only.
 */
export interface OtherVersions {
  /** A release to name in messages, e.g. 1.20.0. Whether a release exists is install-lab.sh's to find. */
  readonly example: string;
  /** Wipes the version's datadir and says what to run (as `start`, with the version's own install). */
  start(lab: LabContext<'electrum' | 'rpc'>, version: string, datadir: string): Launch;
  polling(version: string): Polling;
}

/** One Electrum server of the lab. `Slot` names its ports besides `electrum`. */
export interface LabServer<Name extends string = string, Slot extends string = string> {
  /** Its name wherever the lab shows it: process, pid and log file, `lab status`, `--lab` target. */
  readonly name: Name;
  /** As help and messages write it. */
  readonly title: string;
  /** The profile it is measured as (src/servers/profiles.ts). */
  readonly profile: ProfileName;
  /** The pinned release, or the commit it is built at; scripts/install-lab.sh pins the same. */
  readonly version: string;
  /**
   * Its ports as offsets from the lab's base port (ELECTRUM_BENCH_LAB_PORT_BASE); `electrum` is its
   * plain Electrum port. Docs and users rely on these numbers: never move one.
   */
  readonly ports: Readonly<Record<'electrum' | Slot, number>>;
  /** Its port that listens with TLS, on a certificate of the lab's CA. */
  readonly tls?: Slot;
  /** Its ports that serve the Electrum protocol over WebSocket: ws:// and wss:// (on the same certificate as `tls`). */
  readonly websocket?: { plain: Slot; tls: Slot };
  /** Its HTTP REST API, measured as a target of its own with that profile. */
  readonly rest?: { port: Slot; profile: ProfileName };
  /** Its port that exports Prometheus metrics: scraped by the lab's Prometheus, sampled with `--lab`. */
  readonly metrics?: Slot;
  /**
   * scripts/install-lab.sh's target for it, and where that caches its install under the lab's home.
   * `fromSource`: built from a git repository or source archive, which a machine may not reach; the
   * test tier then goes without it and reports its tests skipped.
   */
  readonly install: { target: string; path(home: string): string; fromSource?: true };
  /**
   * Its index, under the lab's state dir: wiped by the lab before a start on a fresh index (every
   * start but a cold restart's, which starts it on the index it had).
   */
  datadir(stateDir: string): string;
  /** Writes the files it reads (its datadir made if missing) and says what to run: the lab's settings, overridden by `settings`. */
  start(lab: LabContext<'electrum' | Slot>, settings: ServerSettings): Launch;
  /**
   * The limits its configuration sets when started with `settings` beyond the lab's own (a
   * restart's), as measured through `profile` (Esplora's REST API has limits of its own): what
   * the pre-flight doctor plans a run on this lab server against.
   */
  limits(settings: ServerSettings, profile: ProfileName): LimitFinding[];
  /** How a setting reaches it (`--param NAME=…`, a restart's settings). */
  readonly settingsAre: 'env var' | '--flag' | 'config key';
  readonly polling: Polling;
  /** Asked before its tip while it starts, for a server that must not be asked its tip too early. */
  beforeTip?(ask: ElectrumAsk, tip: number): Promise<unknown>;
  /** index-bench: the log lines that start each phase of an index build, and settings that make them show. */
  readonly index: { phases: PhaseRules; observe?: ServerSettings };
  readonly otherVersions?: OtherVersions;
}

/** A server's ports on this lab: the base port plus its offsets. */
export function portsOf(cfg: LabConfig, server: LabServer): Record<string, number> {
  return Object.fromEntries(Object.entries(server.ports).map(([slot, offset]) => [slot, cfg.portBase + offset]));
}

/** Where install-lab.sh caches builds from source: under the commit's first 7 digits. */
export function builtAt(home: string, name: string, commit: string): string {
  return path.join(home, `${name}-${commit.slice(0, 7)}`);
}
