/**
 * Which processes, data directories and metrics endpoints to sample beside a run: named with
 * `--server-pid NAME=PID`, `--server-pidfile NAME=FILE`, `--server-datadir NAME=DIR` and
 * `--metrics NAME=URL`, or, with `--lab`, every lab process (the node and adapter too) with its
 * data directory and electrs' monitoring port. Resolved here, so nothing under src/bench/ knows the lab.
 */
import fs from 'node:fs';
import type { Argv } from 'yargs';
import { UserError } from '../core/user-error';
import type { ResourceTarget } from '../resources/sampler';

/** The options naming what to sample of the servers (sampling's own pace and switch aside). */
export const SERVER_SAMPLING_FLAGS = ['server-pid', 'server-pidfile', 'server-datadir', 'metrics'] as const;

/** The resource options bench and load share. */
export function withResourceOptions<T>(y: Argv<T>) {
  return y
    .option('server-pid', { type: 'string', array: true, describe: 'sample this process (and its children) beside the run: NAME=PID' })
    .option('server-pidfile', { type: 'string', array: true, describe: 'as --server-pid, the pid read from a file at every sample: NAME=FILE' })
    .option('server-datadir', { type: 'string', array: true, describe: "sample a server's data directory size: NAME=DIR" })
    .option('metrics', { type: 'string', array: true, describe: 'scrape a Prometheus endpoint beside the run: NAME=URL' })
    .option('sample-every', { type: 'number', default: 1, describe: 'seconds between resource samples (with --lab or the options above)' })
    .option('resources', { type: 'boolean', default: true, describe: "sample the lab servers' resources with --lab, and an abused lab server's with --abuse (--no-resources to skip)" });
}

type ResourceFlags = ResourceArgs & { lab: boolean; resources: boolean; 'sample-every': number };

function sampleEveryMs(s: number): number {
  if (!(s >= 0.05 && s <= 3600)) throw new UserError(`--sample-every must be between 0.05 and 3600 seconds, got ${s}`);
  return Math.round(s * 1000);
}

/** Explicit targets, or with --lab every lab process (unless --no-resources); checked before anything is measured. */
export async function resourceTargets(a: ResourceFlags): Promise<ResourceTarget[]> {
  sampleEveryMs(a['sample-every']);
  const explicit = explicitResourceTargets(a);
  if (explicit.length) return explicit;
  return a.lab && a.resources ? labResourceTargets() : [];
}

export interface ResourceArgs {
  'server-pid'?: string[];
  'server-pidfile'?: string[];
  'server-datadir'?: string[];
  metrics?: string[];
}

function pairs(flag: string, values: string[] | undefined): Array<[string, string]> {
  return (values ?? []).map((v) => {
    const m = /^([A-Za-z0-9_.-]+)=(.+)$/.exec(v);
    if (!m) throw new UserError(`--${flag}: expected NAME=VALUE, got ${JSON.stringify(v)}`);
    return [m[1], m[2]];
  });
}

export function explicitResourceTargets(a: ResourceArgs): ResourceTarget[] {
  const byName = new Map<string, ResourceTarget>();
  const target = (name: string) => byName.get(name) ?? byName.set(name, { name }).get(name)!;
  for (const [name, v] of pairs('server-pid', a['server-pid'])) {
    const pid = Number(v);
    if (!Number.isInteger(pid) || pid < 2) throw new UserError(`--server-pid ${name}=${v}: not a process id`);
    try {
      process.kill(pid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') throw new UserError(`--server-pid ${name}=${v}: no such process`);
    }
    target(name).pid = pid;
  }
  for (const [name, file] of pairs('server-pidfile', a['server-pidfile'])) {
    if (!fs.existsSync(file)) throw new UserError(`--server-pidfile ${name}=${file}: no such file`);
    target(name).pidFile = file;
  }
  for (const [name, dir] of pairs('server-datadir', a['server-datadir'])) {
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UserError(`--server-datadir ${name}=${dir}: no such directory`);
    target(name).datadir = dir;
  }
  for (const [name, url] of pairs('metrics', a.metrics)) {
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      throw new UserError(`--metrics ${name}=${url}: not a URL`);
    }
    if (u.protocol !== 'http:') throw new UserError(`--metrics ${name}=${url}: expected an http:// URL of a Prometheus endpoint`);
    target(name).metricsUrl = url;
  }
  return [...byName.values()];
}

/**
 * The processes of the run's own servers: those --server-pid and --server-pidfile name, or else
 * (unless --no-resources) the lab processes serving them, each with the run's servers it serves
 * (`onLab`: a run's server name to its lab server's).
 */
export async function ownServerTargets(a: ResourceArgs & { resources: boolean; 'sample-every': number }, onLab: Map<string, string>): Promise<ResourceTarget[]> {
  sampleEveryMs(a['sample-every']);
  const explicit = explicitResourceTargets(a);
  if (explicit.length || !a.resources || onLab.size === 0) return explicit;
  const lab = await labResourceTargets();
  return lab.flatMap((t) => {
    const servers = [...onLab].filter(([, labName]) => labName === t.name).map(([server]) => server);
    return servers.length ? [{ ...t, servers }] : [];
  });
}

/** Every running lab process, by its pid file (a restarted server is followed), with its datadir. */
export async function labResourceTargets(): Promise<ResourceTarget[]> {
  const { labConfig, labPaths } = await import('../lab/config');
  const { pidFile } = await import('../lab/processes');
  const { labStatus } = await import('../lab/lab');
  const { LAB_SERVERS } = await import('../lab/servers/registry');
  const { portsOf } = await import('../lab/servers/lab-server');
  const cfg = labConfig();
  const paths = labPaths(cfg);
  const datadirs: Record<string, string> = { btcd: paths.btcdDir };
  const metrics: Record<string, string> = {};
  const served: Record<string, string[]> = {};
  for (const s of LAB_SERVERS) {
    datadirs[s.name] = s.datadir(cfg.stateDir);
    if (s.metrics) metrics[s.name] = `http://${cfg.host}:${portsOf(cfg, s)[s.metrics]}/`;
    // One process serves both its Electrum port and its REST API (Esplora).
    if (s.rest) served[s.name] = [s.name, s.rest.profile];
  }
  const status = await labStatus();
  return status.components
    .filter((c) => c.running)
    .map((c) => ({
      name: c.name === 'btcd' ? 'node' : c.name,
      pidFile: pidFile(paths, c.name),
      ...(datadirs[c.name] ? { datadir: datadirs[c.name] } : {}),
      ...(metrics[c.name] ? { metricsUrl: metrics[c.name] } : {}),
      ...(served[c.name] ? { servers: served[c.name] } : {}),
    }));
}
