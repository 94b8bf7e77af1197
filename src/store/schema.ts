/**
 * The results database schema, versioned through SQLite's `user_version`. A migration is appended,
 * never edited: a database written by an older electrum-bench opens and upgrades in place.
 */
import type Database from 'better-sqlite3';

const MIGRATIONS: string[] = [
  // 1: runs, the servers of each run, the addresses measured, every sample, derived statistics.
  `
  CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    started_at      TEXT NOT NULL,
    finished_at     TEXT,
    status          TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed')),
    tool_version    TEXT NOT NULL,
    git_commit      TEXT,
    node_version    TEXT NOT NULL,
    host_json       TEXT NOT NULL,
    config_json     TEXT NOT NULL,
    dataset_id      TEXT NOT NULL,
    dataset_path    TEXT NOT NULL,
    dataset_hash    TEXT NOT NULL,
    dataset_lines   INTEGER NOT NULL,
    passes          INTEGER NOT NULL,
    warmup          INTEGER NOT NULL,
    methods         TEXT NOT NULL,
    selfcheck_json  TEXT,
    pool_json       TEXT
  );
  CREATE TABLE servers (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id),
    name           TEXT NOT NULL,
    profile        TEXT NOT NULL,
    url            TEXT NOT NULL,
    software       TEXT,
    protocol       TEXT,
    banner         TEXT,
    features_json  TEXT,
    UNIQUE (run_id, name)
  );
  CREATE TABLE addresses (
    run_id               INTEGER NOT NULL REFERENCES runs(id),
    idx                  INTEGER NOT NULL,
    address              TEXT,
    scripthash           TEXT NOT NULL,
    type                 TEXT NOT NULL,
    tx_count             INTEGER NOT NULL,
    utxo_count           INTEGER NOT NULL,
    balance_confirmed    INTEGER NOT NULL,
    balance_unconfirmed  INTEGER NOT NULL,
    PRIMARY KEY (run_id, idx)
  );
  CREATE TABLE samples (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id),
    server_id       INTEGER NOT NULL REFERENCES servers(id),
    pass            INTEGER NOT NULL,
    warmup          INTEGER NOT NULL,
    address_idx     INTEGER NOT NULL,
    method          TEXT NOT NULL,
    at_ms           INTEGER NOT NULL,
    latency_ns      INTEGER NOT NULL,
    response_bytes  INTEGER,
    result_size     INTEGER,
    status          TEXT NOT NULL,
    error           TEXT,
    tip_height      INTEGER,
    mismatch        INTEGER,
    UNIQUE (run_id, server_id, pass, address_idx, method)
  );
  CREATE TABLE medians (
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    server_id    INTEGER NOT NULL REFERENCES servers(id),
    method       TEXT NOT NULL,
    address_idx  INTEGER NOT NULL,
    median_ns    INTEGER,
    n_ok         INTEGER NOT NULL,
    n_error      INTEGER NOT NULL,
    PRIMARY KEY (run_id, server_id, method, address_idx)
  );
  CREATE TABLE summaries (
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    server_id    INTEGER NOT NULL REFERENCES servers(id),
    method       TEXT NOT NULL,
    n            INTEGER NOT NULL,
    n_ok         INTEGER NOT NULL,
    p50_ns       INTEGER,
    p90_ns       INTEGER,
    p99_ns       INTEGER,
    p999_ns      INTEGER,
    max_ns       INTEGER,
    mismatches   INTEGER,
    errors_json  TEXT NOT NULL,
    PRIMARY KEY (run_id, server_id, method)
  );
  `,
  // 2: the order calls were made in; each session of a run (a run resumed after an interruption has
  // several); which process is measuring a run right now, so two cannot resume it at once.
  `
  ALTER TABLE runs ADD COLUMN call_order TEXT;
  ALTER TABLE runs ADD COLUMN holder TEXT;
  CREATE TABLE run_sessions (
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    session       INTEGER NOT NULL,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    status        TEXT,
    host          TEXT NOT NULL,
    pid           INTEGER NOT NULL,
    tool_version  TEXT NOT NULL,
    git_commit    TEXT,
    servers_json  TEXT NOT NULL,
    PRIMARY KEY (run_id, session)
  );
  `,
  // 3: load runs (src/load/): per server and per second of the schedule clock, what the generator
  // did (target, sent, dropped, lag) and, per method and outcome, HdrHistograms of latency from the
  // intended send and of service time. Raw per-request samples only when asked for (--samples).
  `
  CREATE TABLE load_runs (
    id               INTEGER PRIMARY KEY,
    started_at       TEXT NOT NULL,
    finished_at      TEXT,
    status           TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed', 'aborted')),
    tool_version     TEXT NOT NULL,
    git_commit       TEXT,
    node_version     TEXT NOT NULL,
    host_json        TEXT NOT NULL,
    config_json      TEXT NOT NULL,
    model_json       TEXT NOT NULL,
    dataset_path     TEXT,
    dataset_hash     TEXT,
    shard            TEXT,
    merged_from      TEXT,
    generator_bound  INTEGER NOT NULL DEFAULT 0,
    generator_json   TEXT,
    thresholds_json  TEXT,
    find_max_json    TEXT
  );
  CREATE TABLE load_servers (
    id        INTEGER PRIMARY KEY,
    run_id    INTEGER NOT NULL REFERENCES load_runs(id),
    name      TEXT NOT NULL,
    profile   TEXT NOT NULL,
    url       TEXT NOT NULL,
    software  TEXT,
    protocol  TEXT,
    UNIQUE (run_id, name)
  );
  CREATE TABLE load_intervals (
    run_id             INTEGER NOT NULL REFERENCES load_runs(id),
    server_id          INTEGER NOT NULL REFERENCES load_servers(id),
    idx                INTEGER NOT NULL,
    start_ms           INTEGER NOT NULL,
    length_ms          INTEGER NOT NULL,
    target_rate        REAL,
    vus                INTEGER,
    sent               INTEGER NOT NULL,
    dropped            INTEGER NOT NULL,
    in_flight          INTEGER NOT NULL,
    lag_hist           TEXT,
    loop_delay_p99_us  INTEGER NOT NULL,
    step               INTEGER,
    PRIMARY KEY (run_id, server_id, idx)
  );
  CREATE TABLE load_cells (
    run_id        INTEGER NOT NULL REFERENCES load_runs(id),
    server_id     INTEGER NOT NULL REFERENCES load_servers(id),
    idx           INTEGER NOT NULL,
    method        TEXT NOT NULL,
    outcome       TEXT NOT NULL,
    count         INTEGER NOT NULL,
    bytes         INTEGER NOT NULL,
    latency_hist  TEXT,
    service_hist  TEXT,
    PRIMARY KEY (run_id, server_id, idx, method, outcome)
  );
  CREATE TABLE load_samples (
    run_id       INTEGER NOT NULL REFERENCES load_runs(id),
    server_id    INTEGER NOT NULL REFERENCES load_servers(id),
    intended_us  INTEGER NOT NULL,
    method       TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    latency_us   INTEGER,
    service_us   INTEGER
  );
  `,
  // 4: how many requests one sample took, where a transport needs several for one answer (Esplora
  // REST fetches a history 25 transactions a page); null for the Electrum protocol's single call.
  `
  ALTER TABLE samples ADD COLUMN requests INTEGER;
  `,
  // 5: what the servers cost while they worked (src/resources/): per run and target, /proc readings
  // of each server's process tree at a fixed pace (counters cumulative as the kernel keeps them),
  // data-directory sizes, the host for context ('host' rows), and scraped Prometheus series.
  `
  CREATE TABLE resource_samples (
    run_kind        TEXT NOT NULL CHECK (run_kind IN ('bench', 'load', 'index')),
    run_id          INTEGER NOT NULL,
    target          TEXT NOT NULL,
    at_ms           INTEGER NOT NULL,
    processes       INTEGER,
    cpu_user_s      REAL,
    cpu_system_s    REAL,
    rss_bytes       INTEGER,
    peak_rss_bytes  INTEGER,
    read_bytes      INTEGER,
    write_bytes     INTEGER,
    read_calls      INTEGER,
    write_calls     INTEGER,
    fds             INTEGER,
    threads         INTEGER,
    datadir_bytes   INTEGER,
    host_cpu_busy_s REAL,
    host_cpu_idle_s REAL,
    host_iowait_s   REAL,
    host_mem_available_bytes INTEGER,
    host_disk_read_bytes     INTEGER,
    host_disk_write_bytes    INTEGER
  );
  CREATE INDEX resource_samples_run ON resource_samples (run_kind, run_id, target, at_ms);
  CREATE TABLE metric_samples (
    run_kind  TEXT NOT NULL,
    run_id    INTEGER NOT NULL,
    target    TEXT NOT NULL,
    at_ms     INTEGER NOT NULL,
    name      TEXT NOT NULL,
    value     REAL NOT NULL
  );
  CREATE INDEX metric_samples_run ON metric_samples (run_kind, run_id, target, name, at_ms);
  `,
  // 6: index builds (npm run index-bench): each server started on an empty data directory and timed
  // to the node's tip, with what it spent and the phases its log showed; its resource samples are
  // stored with run_kind 'index' and run_id = the build's id.
  `
  CREATE TABLE index_runs (
    id            INTEGER PRIMARY KEY,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    status        TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'interrupted')),
    tool_version  TEXT NOT NULL,
    git_commit    TEXT,
    host_json     TEXT NOT NULL,
    chain_json    TEXT NOT NULL,
    config_json   TEXT NOT NULL
  );
  CREATE TABLE index_builds (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES index_runs(id),
    server          TEXT NOT NULL,
    settings_json   TEXT NOT NULL,
    repeat          INTEGER NOT NULL,
    index_ms        INTEGER NOT NULL,
    cpu_s           REAL,
    peak_rss_bytes  INTEGER,
    read_bytes      INTEGER,
    write_bytes     INTEGER,
    datadir_bytes   INTEGER,
    phases_json     TEXT NOT NULL
  );
  `,
  // 7: wallet workloads (src/wallet/): a run of whole-wallet syncs (bench: passes over the wallets;
  // load: wallets arriving at a rate, some held), each sync with its time to synced and what it
  // found, every request it sent tagged with its step, and the block notifications held wallets got.
  `
  CREATE TABLE wallet_runs (
    id             INTEGER PRIMARY KEY,
    kind           TEXT NOT NULL CHECK (kind IN ('bench', 'load')),
    started_at     TEXT NOT NULL,
    finished_at    TEXT,
    status         TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed')),
    tool_version   TEXT NOT NULL,
    git_commit     TEXT,
    node_version   TEXT NOT NULL,
    host_json      TEXT NOT NULL,
    config_json    TEXT NOT NULL,
    workload       TEXT NOT NULL,
    wallets_path   TEXT NOT NULL,
    wallets_hash   TEXT NOT NULL,
    passes         INTEGER,
    warmup         INTEGER,
    summary_json   TEXT
  );
  CREATE TABLE wallet_servers (
    id          INTEGER PRIMARY KEY,
    run_id      INTEGER NOT NULL REFERENCES wallet_runs(id),
    name        TEXT NOT NULL,
    profile     TEXT NOT NULL,
    url         TEXT NOT NULL,
    software    TEXT,
    protocol    TEXT,
    setup_json  TEXT,
    UNIQUE (run_id, name)
  );
  CREATE TABLE wallet_syncs (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES wallet_runs(id),
    server_id      INTEGER NOT NULL REFERENCES wallet_servers(id),
    wallet         TEXT NOT NULL,
    pass           INTEGER NOT NULL,
    warmup         INTEGER NOT NULL,
    scripts        INTEGER NOT NULL,
    expected_txs   INTEGER NOT NULL,
    intended_ms    REAL,
    lag_ms         REAL,
    duration_ns    INTEGER NOT NULL,
    requests       INTEGER NOT NULL,
    bytes          INTEGER NOT NULL,
    status         TEXT NOT NULL,
    error          TEXT,
    error_step     TEXT,
    found_txs      INTEGER,
    found_confirmed    INTEGER,
    found_unconfirmed  INTEGER,
    mismatch       TEXT
  );
  CREATE INDEX wallet_syncs_run ON wallet_syncs (run_id, server_id);
  CREATE TABLE wallet_requests (
    sync_id     INTEGER NOT NULL REFERENCES wallet_syncs(id),
    step        TEXT NOT NULL,
    method      TEXT NOT NULL,
    items       INTEGER NOT NULL,
    offset_ns   INTEGER NOT NULL,
    latency_ns  INTEGER NOT NULL,
    bytes       INTEGER NOT NULL,
    status      TEXT NOT NULL,
    error       TEXT
  );
  CREATE INDEX wallet_requests_sync ON wallet_requests (sync_id);
  CREATE TABLE wallet_notifications (
    run_id       INTEGER NOT NULL REFERENCES wallet_runs(id),
    server_id    INTEGER NOT NULL REFERENCES wallet_servers(id),
    block_height INTEGER NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('headers', 'scripthash')),
    connection   INTEGER NOT NULL,
    scripthash   TEXT,
    latency_ns   INTEGER,
    status       TEXT NOT NULL CHECK (status IN ('ok', 'missing', 'duplicate'))
  );
  CREATE INDEX wallet_notifications_run ON wallet_notifications (run_id, server_id);
  `,
  // 8: each load server's outcomes as its summary gave them (every scheduled request's one outcome,
  // answered, and whether the server stopped answering), JSON; null for runs written before.
  `
  ALTER TABLE load_servers ADD COLUMN outcome_json TEXT;
  `,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

export function migrate(db: Database.Database): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(`database schema version ${current} is newer than this electrum-bench understands (${SCHEMA_VERSION})`);
  }
  for (let v = current; v < SCHEMA_VERSION; v++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[v]);
      db.pragma(`user_version = ${v + 1}`);
    })();
  }
}
