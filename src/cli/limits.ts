/**
 * `npm run limits -- --lab | --server PROFILE[@HOST:PORT] ... [--limits a,b] [--source-addresses 127.0.0.2-127.0.0.65]`
 * Where each server stops, and how: per limit the value served (or "none up to N tried"), what the
 * server does past it and how long until it serves normally again; stored in --db, printed as a
 * table, drawn by `report`. Loopback servers only, unless --i-operate-this-server (docs/limits.md).
 */
import yargs from 'yargs';
import { runCli } from './run-cli';
import { UserError, collecting } from '../core/user-error';
import { textTable } from '../core/text-table';
import { LIMIT_NAMES, type LimitName } from '../core/server-limits';
import { LIMIT_TABLE_HEAD, limitRow } from '../core/limit-text';
import { isLoopbackHost, refuseUnlessOperated } from '../core/target-safety';
import { claimInput } from '../core/output-path';
import { parseSourceAddresses } from '../load/source-addresses';
import { readDataset } from '../dataset/line';
import { DEFAULT_MAX_LINE_BYTES } from '../electrum/client';
import { DATASET_LIMITS, type LimitsPlan } from '../limits/prober';
import { limitsSession, type LimitsDetail } from '../runs/kinds/limits';
import type { RunOutcome } from '../runs/outcome';
import { electrumTargets, resolveTargets } from './server-targets';
import { labDatasetFor } from './lab-targets';
import { refusingMistakes, timeoutSeconds } from './validate';

/** 64 loopback sources other than 127.0.0.1, which Fulcrum exempts from its per-IP limits by default. */
const DEFAULT_SOURCES = '127.0.0.2-127.0.0.65';

export async function main(argv: string[]): Promise<number> {
  const a = await refusingMistakes(
    yargs(argv)
      .scriptName('npm run limits --')
      .option('server', { type: 'string', array: true, describe: 'PROFILE[@HOST:PORT] (repeatable); plain TCP' })
      .option('lab', { type: 'boolean', default: false, describe: "every running lab server's Electrum port" })
      .option('host', { type: 'string', describe: 'host of a single --server' })
      .option('port', { type: 'number', describe: 'port of a single --server' })
      .option('i-operate-this-server', { type: 'boolean', default: false, describe: 'probe a server not on this machine: you operate it (recorded with the run)' })
      .option('limits', { type: 'string', describe: `limits to probe, comma-separated (default: all): ${LIMIT_NAMES.join(', ')}` })
      .option('source-addresses', { type: 'string', describe: `loopback addresses to connect from: the first for one source, all for the total (default ${DEFAULT_SOURCES} on loopback)` })
      .option('dataset', { type: 'string', describe: "JSONL dataset whose addresses size the history, UTXO and response probes (default with lab servers: the lab's)" })
      .option('max-connections-per-source', { type: 'number', default: 64, describe: 'connections tried from one source address' })
      .option('max-connections', { type: 'number', default: 256, describe: 'connections tried in all' })
      .option('max-subscriptions', { type: 'number', default: 2000, describe: 'subscriptions tried on one connection' })
      .option('max-batch', { type: 'number', default: 2048, describe: 'requests tried in one batch' })
      .option('max-request-bytes', { type: 'number', default: 8 << 20, describe: 'bytes tried in one request line' })
      .option('max-response-bytes', { type: 'number', default: 8 << 20, describe: 'bytes of reply asked for in one line' })
      .option('max-probes', { type: 'number', default: 40, describe: 'probes per limit' })
      .option('seconds-per-limit', { type: 'number', default: 60, describe: 'seconds one limit may take' })
      .option('recovery-within', { type: 'number', default: 30, describe: 'seconds to wait for a server to serve again after a limit' })
      .option('timeout', { type: 'number', default: 5, describe: 'seconds a probe waits for its answer' })
      .option('fresh', { type: 'boolean', default: false, describe: "probe every limit again instead of taking over the latest run's findings" })
      .option('db', { type: 'string', default: 'results/limits.sqlite', describe: 'results database (SQLite)' })
      .option('json', { type: 'boolean', default: false, describe: 'print the findings as JSON' }),
    argv,
  ).parseAsync();

  const problems: string[] = [];
  const take = collecting(problems);
  const count = (flag: string, v: number, min: number, max: number) => {
    if (!Number.isInteger(v) || v < min || v > max) problems.push(`--${flag} must be an integer in ${min}..${max}, got ${v}`);
    return v;
  };
  const limits = a.limits === undefined ? undefined : take(() => parseLimits(a.limits!));
  const plan = {
    maxConnectionsPerSource: count('max-connections-per-source', a['max-connections-per-source'], 1, 100_000),
    maxConnections: count('max-connections', a['max-connections'], 1, 100_000),
    maxSubscriptions: count('max-subscriptions', a['max-subscriptions'], 1, 10_000_000),
    maxBatch: count('max-batch', a['max-batch'], 1, 1_000_000),
    maxRequestBytes: count('max-request-bytes', a['max-request-bytes'], 256, 1 << 30),
    maxResponseBytes: count('max-response-bytes', a['max-response-bytes'], 1024, 1 << 30),
    maxProbes: count('max-probes', a['max-probes'], 1, 1000),
    secondsPerLimit: take(() => timeoutSeconds('--seconds-per-limit', a['seconds-per-limit']) / 1000) ?? 0,
    recoveryWithinMs: take(() => timeoutSeconds('--recovery-within', a['recovery-within'])) ?? 0,
    timeoutMs: take(() => timeoutSeconds('--timeout', a.timeout)) ?? 0,
  };
  const given = a['source-addresses'] === undefined ? undefined : take(() => parseSourceAddresses(a['source-addresses']!));
  if (problems.length) throw new UserError(problems.join('; '));

  const { targets: resolved } = await resolveTargets({ server: a.server, lab: a.lab, host: a.host, port: a.port, tls: false });
  const targets = electrumTargets(resolved, a.lab, 'limits speaks');
  // Before any connection: a server not on this machine is probed only by the one who runs it
  // (the lab's servers are ours).
  refuseUnlessOperated('limits', a.lab ? [] : targets, a['i-operate-this-server']);
  const odd = targets.filter((t) => t.tls || t.websocket);
  if (odd.length) throw new UserError(`limits probes plain TCP: ${odd.map((t) => t.name).join(', ')} is TLS or WebSocket; give its TCP port`);
  const remote = targets.some((t) => !isLoopbackHost(t.host));
  if (remote && given) throw new UserError('--source-addresses are loopback addresses: they reach no server off this machine');
  const sourceAddresses = given ?? (remote ? [] : parseSourceAddresses(DEFAULT_SOURCES));

  // Not the lab's servers (its refusal, a user error): the limits sized from a dataset are left out. Anything else is a bug.
  const datasetPath = a.dataset ?? (await labDatasetFor(targets).catch((err: unknown) => (err instanceof UserError ? undefined : Promise.reject(err))));
  if (datasetPath !== undefined) claimInput(datasetPath, '--dataset');
  const dataset = datasetPath === undefined ? null : readDataset(datasetPath);
  const wanted = limits ?? LIMIT_NAMES.filter((l) => dataset !== null || !DATASET_LIMITS.includes(l));
  const needsDataset = wanted.filter((l) => DATASET_LIMITS.includes(l));
  if (dataset === null && needsDataset.length) throw new UserError(`--limits ${needsDataset.join(',')} sizes its probes from a dataset: give --dataset FILE`);

  const fullPlan: LimitsPlan = { ...plan, limits: wanted, sourceAddresses, maxLineBytes: DEFAULT_MAX_LINE_BYTES, dataset: dataset?.lines ?? null };
  const { outcome, code } = await limitsSession({
    servers: targets,
    plan: fullPlan,
    operates: a['i-operate-this-server'],
    fresh: a.fresh,
    db: a.db,
    dataset: dataset ? { path: dataset.path, hash: dataset.hash } : null,
    notes: dataset === null && limits === undefined ? [`no dataset (--dataset FILE): ${DATASET_LIMITS.join(', ')} not probed`] : [],
    log: (line) => process.stderr.write(`[limits] ${line}\n`),
  });
  process.stdout.write(a.json ? JSON.stringify(outcome.json, null, 2) + '\n' : printLimits(outcome));
  return code;
}

function parseLimits(text: string): LimitName[] {
  const names = text.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = names.filter((n) => !(LIMIT_NAMES as readonly string[]).includes(n));
  if (names.length === 0 || unknown.length) throw new UserError(`--limits: unknown limit ${unknown.join(', ') || '(none)'}; known: ${LIMIT_NAMES.join(', ')}`);
  return LIMIT_NAMES.filter((l) => names.includes(l));
}

function printLimits(outcome: RunOutcome<LimitsDetail>): string {
  const parts = [`limits run ${outcome.runId} (${outcome.db}): ${outcome.status}`];
  for (const s of outcome.detail.servers) {
    parts.push('', `${s.server} (${s.url})`, textTable([...LIMIT_TABLE_HEAD], s.findings.map(limitRow)));
  }
  return parts.join('\n') + '\n';
}

if (require.main === module) runCli(main);
