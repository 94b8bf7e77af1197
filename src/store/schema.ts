/**
 * The results database schema, versioned through SQLite's `user_version`. A migration is appended,
 * never edited: a database written by an older electrum-bench opens and upgrades in place.
 */
import type Database from 'better-sqlite3';

/** The kinds of run migration 8 knew. */
const RUN_KINDS_8 = ['bench', 'load', 'wallet-bench', 'wallet-load', 'index'];

/** The one run record's table, allowing `kinds`. */
function runsTable(name: string, kinds: readonly string[]): string {
  return `
  CREATE TABLE ${name} (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL CHECK (kind IN (${kinds.map((k) => `'${k}'`).join(', ')})),
    legacy_id     INTEGER,
    started_at    TEXT NOT NULL,
    finished_at   TEXT,
    status        TEXT NOT NULL CHECK (status IN ('running', 'interrupted', 'completed', 'failed', 'aborted')),
    tool_version  TEXT NOT NULL,
    git_commit    TEXT,
    node_version  TEXT,
    host_json     TEXT NOT NULL,
    config_json   TEXT NOT NULL,
    dataset_path  TEXT,
    dataset_hash  TEXT,
    holder        TEXT
  );`;
}

const MIGRATIONS: Array<string | ((db: Database.Database) => void)> = [
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
  // 8: one run record. Every run, whatever its kind, is a row of `runs` (what every run has) with
  // its servers in `run_servers`; what only one kind has lives in that kind's detail tables, keyed
  // by the run's id. Rows of the four run tables of 1–7 move here: bench runs and bench servers
  // keep their ids; the other kinds' runs get ids above every id of 1–7 (so an old number and a
  // new id never name two different runs of one kind) and remember the old one in `legacy_id`,
  // through which `--load-run N`, `--wallet-run N` and the like still find them. Resource and
  // metric samples are keyed by the run (and, for index builds, the build).
  moveToOneRunRecord,
  // 9: each server's outcomes as its load summary gave them (every scheduled request's one outcome,
  // answered, and whether the server stopped answering), JSON; null for runs written before and for
  // other kinds.
  `
  ALTER TABLE run_servers ADD COLUMN outcome_json TEXT;
  `,
  // 10: how the load was paced, in the words of the executor that paced it (each executor describes
  // itself, so a report need not know every executor); null for runs written before.
  `
  ALTER TABLE load_runs ADD COLUMN model_text TEXT;
  `,
  // 11: limits runs (npm run limits): `runs` takes the kind 'limits' (SQLite cannot change a CHECK
  // in place, so the table is copied into one that allows it), and each server's limits are rows of
  // limit_findings: the value served (null: none up to tried_up_to), what the server did past it
  // (PastLimit, JSON), how long until it served again, and the run a resumed finding came from.
  `
  ${runsTable('runs_v11', [...RUN_KINDS_8, 'limits'])}
  INSERT INTO runs_v11 SELECT id, kind, legacy_id, started_at, finished_at, status, tool_version, git_commit, node_version, host_json,
    config_json, dataset_path, dataset_hash, holder FROM runs;
  DROP TABLE runs;
  ALTER TABLE runs_v11 RENAME TO runs;
  CREATE INDEX runs_kind ON runs (kind, legacy_id);
  CREATE TABLE limit_findings (
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    server_id     INTEGER NOT NULL REFERENCES run_servers(id),
    limit_name    TEXT NOT NULL,
    value         INTEGER,
    tried_up_to   INTEGER NOT NULL,
    past_json     TEXT,
    recovery_ms   INTEGER,
    source        TEXT NOT NULL CHECK (source IN ('measured', 'configured')),
    note          TEXT,
    carried_from  INTEGER REFERENCES runs(id),
    found_at      TEXT NOT NULL,
    PRIMARY KEY (run_id, server_id, limit_name)
  );
  `,
  // 12: cold passes (bench --cold): each sample says whether its pass was cold (made after the OS
  // page cache was dropped and the servers restarted); `medians` and `summaries` stay the warm
  // counted passes' figures, and `cold_summaries` holds the cold passes' beside them, with each
  // address's first touch after a restart summed against the warm medians of the same calls. Runs
  // stored before had no cold pass.
  `
  ALTER TABLE samples ADD COLUMN cold INTEGER NOT NULL DEFAULT 0;
  CREATE TABLE cold_summaries (
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    server_id     INTEGER NOT NULL REFERENCES run_servers(id),
    method        TEXT NOT NULL,
    n             INTEGER NOT NULL,
    n_ok          INTEGER NOT NULL,
    p50_ns        INTEGER,
    p90_ns        INTEGER,
    p99_ns        INTEGER,
    max_ns        INTEGER,
    errors_json   TEXT NOT NULL,
    first_touches  INTEGER NOT NULL,
    first_touch_sum_ns   INTEGER NOT NULL,
    warm_median_sum_ns   INTEGER NOT NULL,
    PRIMARY KEY (run_id, server_id, method)
  );
  `,
  // 13: abuse beside a wallet load (load --workload --abuse): per run and server, the profile, its
  // window (epoch ms: the arrivals' start, the abuse's start and end, the arrivals' end), whether
  // the server stayed up (null: not known) and how long it took to serve normally again; and per
  // phase (before, during, after) the arriving wallets' syncs, the held wallets' headers
  // notifications of the blocks mined in it, and the server's process as sampled (null: not).
  `
  CREATE TABLE abuse_runs (
    run_id              INTEGER NOT NULL REFERENCES runs(id),
    server_id           INTEGER NOT NULL REFERENCES run_servers(id),
    profile             TEXT NOT NULL,
    spec                TEXT NOT NULL,
    arrivals_start_ms   INTEGER NOT NULL,
    abuse_start_ms      INTEGER NOT NULL,
    abuse_end_ms        INTEGER NOT NULL,
    arrivals_end_ms     INTEGER NOT NULL,
    tally_json          TEXT NOT NULL,
    answered_during     INTEGER NOT NULL,
    answered_after      INTEGER NOT NULL,
    stayed_up           INTEGER,
    recovered_after_s   REAL,
    sampled_target      TEXT,
    not_sampled_why     TEXT,
    notifications_why   TEXT,
    PRIMARY KEY (run_id, server_id)
  );
  CREATE TABLE abuse_phases (
    run_id                  INTEGER NOT NULL REFERENCES runs(id),
    server_id               INTEGER NOT NULL REFERENCES run_servers(id),
    phase                   TEXT NOT NULL CHECK (phase IN ('before', 'during', 'after')),
    units                   INTEGER NOT NULL,
    ok                      INTEGER NOT NULL,
    errors_json             TEXT NOT NULL,
    p50_ms                  REAL,
    p99_ms                  REAL,
    blocks                  INTEGER,
    notifications_expected  INTEGER,
    notifications_ok        INTEGER,
    notifications_missing   INTEGER,
    notify_p50_ms           REAL,
    notify_p99_ms           REAL,
    readings                INTEGER,
    gone                    INTEGER,
    cpu_share               REAL,
    rss_max_bytes           INTEGER,
    threads_max             INTEGER,
    fds_max                 INTEGER,
    PRIMARY KEY (run_id, server_id, phase)
  );
  `,
  // 14: a cold run's first touches beside each of the same calls' mean over the warm passes, summed
  // (the warm median of two passes is the faster of them, which made a server with no cold cost
  // look slower cold). Null for runs stored before, whose first touches stand beside the warm
  // medians only.
  `
  ALTER TABLE cold_summaries ADD COLUMN warm_mean_sum_ns INTEGER;
  `,
];

const V7_TABLES = [
  'runs', 'servers', 'addresses', 'samples', 'medians', 'summaries', 'run_sessions',
  'load_runs', 'load_servers', 'load_intervals', 'load_cells', 'load_samples',
  'resource_samples', 'metric_samples', 'index_runs', 'index_builds',
  'wallet_runs', 'wallet_servers', 'wallet_syncs', 'wallet_requests', 'wallet_notifications',
];

const ONE_RUN_RECORD = `
  ${runsTable('runs', RUN_KINDS_8)}
  CREATE INDEX runs_kind ON runs (kind, legacy_id);
  CREATE TABLE run_servers (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id),
    name           TEXT NOT NULL,
    profile        TEXT NOT NULL,
    url            TEXT NOT NULL,
    software       TEXT,
    protocol       TEXT,
    banner         TEXT,
    features_json  TEXT,
    setup_json     TEXT,
    UNIQUE (run_id, name)
  );
  CREATE TABLE bench_runs (
    run_id          INTEGER PRIMARY KEY REFERENCES runs(id),
    dataset_id      TEXT NOT NULL,
    dataset_lines   INTEGER NOT NULL,
    passes          INTEGER NOT NULL,
    warmup          INTEGER NOT NULL,
    methods         TEXT NOT NULL,
    selfcheck_json  TEXT,
    pool_json       TEXT,
    call_order      TEXT
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
    server_id       INTEGER NOT NULL REFERENCES run_servers(id),
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
    requests        INTEGER,
    UNIQUE (run_id, server_id, pass, address_idx, method)
  );
  CREATE TABLE medians (
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    server_id    INTEGER NOT NULL REFERENCES run_servers(id),
    method       TEXT NOT NULL,
    address_idx  INTEGER NOT NULL,
    median_ns    INTEGER,
    n_ok         INTEGER NOT NULL,
    n_error      INTEGER NOT NULL,
    PRIMARY KEY (run_id, server_id, method, address_idx)
  );
  CREATE TABLE summaries (
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    server_id    INTEGER NOT NULL REFERENCES run_servers(id),
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
  CREATE TABLE load_runs (
    run_id           INTEGER PRIMARY KEY REFERENCES runs(id),
    model_json       TEXT NOT NULL,
    shard            TEXT,
    merged_from      TEXT,
    generator_bound  INTEGER NOT NULL DEFAULT 0,
    generator_json   TEXT,
    thresholds_json  TEXT,
    find_max_json    TEXT
  );
  CREATE TABLE load_intervals (
    run_id             INTEGER NOT NULL REFERENCES runs(id),
    server_id          INTEGER NOT NULL REFERENCES run_servers(id),
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
    run_id        INTEGER NOT NULL REFERENCES runs(id),
    server_id     INTEGER NOT NULL REFERENCES run_servers(id),
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
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    server_id    INTEGER NOT NULL REFERENCES run_servers(id),
    intended_us  INTEGER NOT NULL,
    method       TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    latency_us   INTEGER,
    service_us   INTEGER
  );
  CREATE TABLE wallet_runs (
    run_id        INTEGER PRIMARY KEY REFERENCES runs(id),
    workload      TEXT NOT NULL,
    passes        INTEGER,
    warmup        INTEGER,
    summary_json  TEXT
  );
  CREATE TABLE wallet_syncs (
    id             INTEGER PRIMARY KEY,
    run_id         INTEGER NOT NULL REFERENCES runs(id),
    server_id      INTEGER NOT NULL REFERENCES run_servers(id),
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
  CREATE TABLE wallet_notifications (
    run_id       INTEGER NOT NULL REFERENCES runs(id),
    server_id    INTEGER NOT NULL REFERENCES run_servers(id),
    block_height INTEGER NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('headers', 'scripthash')),
    connection   INTEGER NOT NULL,
    scripthash   TEXT,
    latency_ns   INTEGER,
    status       TEXT NOT NULL CHECK (status IN ('ok', 'missing', 'duplicate'))
  );
  CREATE TABLE index_runs (
    run_id      INTEGER PRIMARY KEY REFERENCES runs(id),
    chain_json  TEXT NOT NULL
  );
  CREATE TABLE index_builds (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id),
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
  CREATE TABLE resource_samples (
    run_id          INTEGER NOT NULL REFERENCES runs(id),
    build_id        INTEGER REFERENCES index_builds(id),
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
  CREATE TABLE metric_samples (
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    build_id  INTEGER REFERENCES index_builds(id),
    target    TEXT NOT NULL,
    at_ms     INTEGER NOT NULL,
    name      TEXT NOT NULL,
    value     REAL NOT NULL
  );
`;

// Created once the tables of 1–7 (and their indexes, some of the same names) are gone.
const ONE_RUN_RECORD_INDEXES = `
  CREATE INDEX wallet_syncs_run ON wallet_syncs (run_id, server_id);
  CREATE INDEX wallet_requests_sync ON wallet_requests (sync_id);
  CREATE INDEX wallet_notifications_run ON wallet_notifications (run_id, server_id);
  CREATE INDEX resource_samples_run ON resource_samples (run_id, build_id, target, at_ms);
  CREATE INDEX metric_samples_run ON metric_samples (run_id, build_id, target, name, at_ms);
`;

const COMMON = 'started_at, finished_at, status, tool_version, git_commit';

function moveToOneRunRecord(db: Database.Database): void {
  for (const t of V7_TABLES) db.exec(`ALTER TABLE ${t} RENAME TO v7_${t}`);
  db.exec(ONE_RUN_RECORD);
  const max = (table: string) => (db.prepare(`SELECT coalesce(max(id), 0) AS m FROM v7_${table}`).get() as { m: number }).m;
  const [bench, load, wallet, index] = [max('runs'), max('load_runs'), max('wallet_runs'), max('index_runs')];
  // Run ids: bench runs keep theirs; each other kind in turn above every id 1–7 gave out.
  const loadRun = Math.max(bench, load, wallet, index);
  const walletRun = loadRun + load;
  const indexRun = walletRun + wallet;
  // Server ids: bench servers keep theirs; load then wallet servers above them.
  const loadServer = max('servers');
  const walletServer = loadServer + max('load_servers');
  const o = { loadRun, walletRun, indexRun, loadServer, walletServer };
  db.prepare(`
    INSERT INTO runs (id, kind, legacy_id, ${COMMON}, node_version, host_json, config_json, dataset_path, dataset_hash, holder)
    SELECT id, 'bench', id, ${COMMON}, node_version, host_json, config_json, dataset_path, dataset_hash, holder FROM v7_runs`).run();
  db.exec(`
    INSERT INTO bench_runs (run_id, dataset_id, dataset_lines, passes, warmup, methods, selfcheck_json, pool_json, call_order)
    SELECT id, dataset_id, dataset_lines, passes, warmup, methods, selfcheck_json, pool_json, call_order FROM v7_runs;
    INSERT INTO run_servers (id, run_id, name, profile, url, software, protocol, banner, features_json)
    SELECT id, run_id, name, profile, url, software, protocol, banner, features_json FROM v7_servers;
    INSERT INTO addresses SELECT run_id, idx, address, scripthash, type, tx_count, utxo_count, balance_confirmed, balance_unconfirmed FROM v7_addresses;
    INSERT INTO samples (id, run_id, server_id, pass, warmup, address_idx, method, at_ms, latency_ns, response_bytes, result_size, status, error, tip_height, mismatch, requests)
    SELECT id, run_id, server_id, pass, warmup, address_idx, method, at_ms, latency_ns, response_bytes, result_size, status, error, tip_height, mismatch, requests FROM v7_samples;
    INSERT INTO medians SELECT run_id, server_id, method, address_idx, median_ns, n_ok, n_error FROM v7_medians;
    INSERT INTO summaries SELECT run_id, server_id, method, n, n_ok, p50_ns, p90_ns, p99_ns, p999_ns, max_ns, mismatches, errors_json FROM v7_summaries;
    INSERT INTO run_sessions SELECT run_id, session, started_at, finished_at, status, host, pid, tool_version, git_commit, servers_json FROM v7_run_sessions;
  `);
  const run = (sql: string) => db.prepare(sql).run(o);
  run(`INSERT INTO runs (id, kind, legacy_id, ${COMMON}, node_version, host_json, config_json, dataset_path, dataset_hash)
    SELECT id + @loadRun, 'load', id, ${COMMON}, node_version, host_json, config_json, dataset_path, dataset_hash FROM v7_load_runs`);
  run(`INSERT INTO load_runs (run_id, model_json, shard, merged_from, generator_bound, generator_json, thresholds_json, find_max_json)
    SELECT id + @loadRun, model_json, shard, merged_from, generator_bound, generator_json, thresholds_json, find_max_json FROM v7_load_runs`);
  run(`INSERT INTO run_servers (id, run_id, name, profile, url, software, protocol)
    SELECT id + @loadServer, run_id + @loadRun, name, profile, url, software, protocol FROM v7_load_servers`);
  run(`INSERT INTO load_intervals SELECT run_id + @loadRun, server_id + @loadServer, idx, start_ms, length_ms, target_rate, vus, sent, dropped,
    in_flight, lag_hist, loop_delay_p99_us, step FROM v7_load_intervals`);
  run(`INSERT INTO load_cells SELECT run_id + @loadRun, server_id + @loadServer, idx, method, outcome, count, bytes, latency_hist, service_hist FROM v7_load_cells`);
  run(`INSERT INTO load_samples SELECT run_id + @loadRun, server_id + @loadServer, intended_us, method, outcome, latency_us, service_us FROM v7_load_samples`);

  run(`INSERT INTO runs (id, kind, legacy_id, ${COMMON}, node_version, host_json, config_json, dataset_path, dataset_hash)
    SELECT id + @walletRun, 'wallet-' || kind, id, ${COMMON}, node_version, host_json, config_json, wallets_path, wallets_hash FROM v7_wallet_runs`);
  run(`INSERT INTO wallet_runs (run_id, workload, passes, warmup, summary_json) SELECT id + @walletRun, workload, passes, warmup, summary_json FROM v7_wallet_runs`);
  run(`INSERT INTO run_servers (id, run_id, name, profile, url, software, protocol, setup_json)
    SELECT id + @walletServer, run_id + @walletRun, name, profile, url, software, protocol, setup_json FROM v7_wallet_servers`);
  run(`INSERT INTO wallet_syncs SELECT id, run_id + @walletRun, server_id + @walletServer, wallet, pass, warmup, scripts, expected_txs, intended_ms, lag_ms,
    duration_ns, requests, bytes, status, error, error_step, found_txs, found_confirmed, found_unconfirmed, mismatch FROM v7_wallet_syncs`);
  run(`INSERT INTO wallet_requests SELECT sync_id, step, method, items, offset_ns, latency_ns, bytes, status, error FROM v7_wallet_requests`);
  run(`INSERT INTO wallet_notifications SELECT run_id + @walletRun, server_id + @walletServer, block_height, kind, connection, scripthash, latency_ns, status
    FROM v7_wallet_notifications`);

  run(`INSERT INTO runs (id, kind, legacy_id, ${COMMON}, host_json, config_json)
    SELECT id + @indexRun, 'index', id, ${COMMON}, host_json, config_json FROM v7_index_runs`);
  run(`INSERT INTO index_runs (run_id, chain_json) SELECT id + @indexRun, chain_json FROM v7_index_runs`);
  run(`INSERT INTO index_builds SELECT id, run_id + @indexRun, server, settings_json, repeat, index_ms, cpu_s, peak_rss_bytes, read_bytes, write_bytes,
    datadir_bytes, phases_json FROM v7_index_builds`);

  // Index builds' samples were keyed by the build; they now name its run too.
  const owner = `CASE run_kind WHEN 'bench' THEN run_id WHEN 'load' THEN run_id + @loadRun
    ELSE (SELECT b.run_id + @indexRun FROM v7_index_builds b WHERE b.id = s.run_id) END,
    CASE run_kind WHEN 'index' THEN run_id END`;
  run(`INSERT INTO resource_samples SELECT ${owner}, target, at_ms, processes, cpu_user_s, cpu_system_s, rss_bytes, peak_rss_bytes, read_bytes,
    write_bytes, read_calls, write_calls, fds, threads, datadir_bytes, host_cpu_busy_s, host_cpu_idle_s, host_iowait_s, host_mem_available_bytes,
    host_disk_read_bytes, host_disk_write_bytes FROM v7_resource_samples s`);
  run(`INSERT INTO metric_samples SELECT ${owner}, target, at_ms, name, value FROM v7_metric_samples s`);
  for (const t of V7_TABLES) db.exec(`DROP TABLE v7_${t}`);
  db.exec(ONE_RUN_RECORD_INDEXES);
}

export const SCHEMA_VERSION = MIGRATIONS.length;

/** Upgrades `db` to `upTo` (this version's schema unless told), one transaction per migration. */
export function migrate(db: Database.Database, upTo = SCHEMA_VERSION): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    throw new Error(`database schema version ${current} is newer than this electrum-bench understands (${SCHEMA_VERSION})`);
  }
  if (current >= upTo) return;
  // Tables are moved by copy, then dropped: their old references may not block that. SQLite
  // ignores this pragma inside a transaction, so it is set around them.
  const foreignKeys = db.pragma('foreign_keys', { simple: true }) as number;
  db.pragma('foreign_keys = OFF');
  try {
    for (let v = current; v < upTo; v++) {
      const step = MIGRATIONS[v];
      db.transaction(() => {
        if (typeof step === 'string') db.exec(step);
        else step(db);
        db.pragma(`user_version = ${v + 1}`);
      })();
    }
  } finally {
    db.pragma(`foreign_keys = ${foreignKeys ? 'ON' : 'OFF'}`);
  }
}
