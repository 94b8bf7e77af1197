/**
 * The one run record (schema migration 8): every run of every kind is a row of `runs` with its
 * servers in `run_servers`; each kind's store adds its detail rows beside these in the same
 * transaction. A run is known to users by its id, and a run written before migration 8 also by the
 * number it had then (`legacy_id`): `resolveRun` finds it by either.
 */
import type { ObservedReplies } from '../core/observed-replies';
import type Database from 'better-sqlite3';
import { hostInfo } from '../core/host-info';
import type { RunStatus } from '../core/run-status';

export type RunKind = 'bench' | 'load' | 'wallet-bench' | 'wallet-load' | 'index' | 'limits';
export type { RunStatus } from '../core/run-status';

/** The kinds one selector names: `--wallet-run N` finds a wallet bench or a wallet load run, as before 8. */
export const RUN_FAMILIES = {
  bench: ['bench'],
  load: ['load'],
  wallet: ['wallet-bench', 'wallet-load'],
  index: ['index'],
  limits: ['limits'],
} as const satisfies Record<string, readonly RunKind[]>;
export type RunFamily = keyof typeof RUN_FAMILIES;

export interface RunRow {
  id: number;
  kind: RunKind;
  /** The id this run had in its kind's own table before schema 8; null for runs written since. */
  legacy_id: number | null;
  started_at: string;
  finished_at: string | null;
  status: RunStatus;
  tool_version: string;
  git_commit: string | null;
  node_version: string | null;
  host_json: string;
  config_json: string;
  dataset_path: string | null;
  dataset_hash: string | null;
  /** "host:pid" of the process measuring this run now; null when none is. */
  holder: string | null;
}

/** A run as read for users: with the number they know it by (RUN_NUMBER). */
export type NumberedRun = { number: number };

/**
 * The number a user knows a run by, printed and taken back by the selectors: the id it had before
 * schema 8 if it had one, else its id. Unique within a family (migration 8 put every moved run's id
 * above every old number), so `--load-run 2` means what it meant before the upgrade.
 */
export const RUN_NUMBER = 'coalesce(r.legacy_id, r.id) AS number';

export interface NewRun {
  kind: RunKind;
  tool_version: string;
  git_commit: string | null;
  config_json: string; // never a secret
  started_at?: string;
  node_version?: string;
  host_json?: string;
  dataset_path?: string | null;
  dataset_hash?: string | null;
  holder?: string | null;
}

export interface ServerRow {
  id: number;
  run_id: number;
  name: string;
  profile: string;
  url: string;
  software: string | null;
  protocol: string | null;
  banner: string | null;
  features_json: string | null;
  setup_json: string | null;
}

export type NewServer = Pick<ServerRow, 'name' | 'profile' | 'url'> & Partial<Omit<ServerRow, 'id' | 'run_id' | 'name' | 'profile' | 'url'>>;

/** The run's row and its servers'; the caller's transaction (or this one) holds its detail rows too. */
export function createRun(db: Database.Database, run: NewRun, servers: readonly NewServer[]): { runId: number; serverIds: number[] } {
  return db.transaction(() => {
    const runId = Number(
      db
        .prepare(
          `INSERT INTO runs (kind, started_at, status, tool_version, git_commit, node_version, host_json, config_json, dataset_path, dataset_hash, holder)
           VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          run.kind,
          run.started_at ?? new Date().toISOString(),
          run.tool_version,
          run.git_commit,
          run.node_version ?? process.version,
          run.host_json ?? JSON.stringify(hostInfo()),
          run.config_json,
          run.dataset_path ?? null,
          run.dataset_hash ?? null,
          run.holder ?? null,
        ).lastInsertRowid,
    );
    const add = db.prepare(`INSERT INTO run_servers (run_id, name, profile, url, software, protocol, banner, features_json, setup_json)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    const serverIds = servers.map((s) =>
      Number(add.run(runId, s.name, s.profile, s.url, s.software ?? null, s.protocol ?? null, s.banner ?? null, s.features_json ?? null, s.setup_json ?? null).lastInsertRowid),
    );
    return { runId, serverIds };
  })();
}

/** Ends a run: its status, when, and no process holds it any more. */
export function finishRun(db: Database.Database, runId: number, status: RunStatus, finishedAt = new Date().toISOString()): void {
  db.prepare('UPDATE runs SET status = ?, finished_at = ?, holder = NULL WHERE id = ?').run(status, finishedAt, runId);
}

/** What a server said of itself once connected. `keepKnown`: what is already recorded stays. */
export function setServerInfo(db: Database.Database, serverId: number, info: { software?: string | null; protocol?: string | null }, keepKnown = false): void {
  const sql = keepKnown
    ? 'UPDATE run_servers SET software = coalesce(software, ?), protocol = coalesce(protocol, ?) WHERE id = ?'
    : 'UPDATE run_servers SET software = ?, protocol = ? WHERE id = ?';
  db.prepare(sql).run(info.software ?? null, info.protocol ?? null, serverId);
}

/** What a server's first connection saw of its replies (client.ts probeReplyHold), kept in its setup JSON beside what else is there. */
export function setServerReplies(db: Database.Database, serverId: number, replies: ObservedReplies): void {
  db.prepare("UPDATE run_servers SET setup_json = json_set(coalesce(setup_json, '{}'), '$.replies', json(?)) WHERE id = ?").run(JSON.stringify(replies), serverId);
}

/** `?, ?, …` for the kinds of a family. */
function kindsIn(family: RunFamily): string {
  return RUN_FAMILIES[family].map(() => '?').join(', ');
}

/** Whether the database holds a run of `family`. */
export function hasRunOf(db: Database.Database, family: RunFamily): boolean {
  return db.prepare(`SELECT 1 FROM runs WHERE kind IN (${kindsIn(family)}) LIMIT 1`).get(...RUN_FAMILIES[family]) !== undefined;
}

/**
 * The run of `family` a user's number names: its id, or the id it had before schema 8. Migration 8
 * gave moved runs ids above every old number, so within one family the two never name two runs.
 */
export function resolveRun(db: Database.Database, family: RunFamily, n: number): number | undefined {
  const row = db
    .prepare(`SELECT id FROM runs WHERE kind IN (${kindsIn(family)}) AND (id = ? OR legacy_id = ?) ORDER BY id = ? DESC LIMIT 1`)
    .get(...RUN_FAMILIES[family], n, n, n) as { id: number } | undefined;
  return row?.id;
}

export function serversOf(db: Database.Database, runId: number): ServerRow[] {
  return db.prepare('SELECT * FROM run_servers WHERE run_id = ? ORDER BY id').all(runId) as ServerRow[];
}
