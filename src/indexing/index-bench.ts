/**
 * The index-build benchmark: each server started on an empty data directory and timed until it
 * answers at the node's tip, sampled meanwhile (CPU, peak RSS, disk I/O, data directory) and its
 * log read for phases. Repeated, and optionally once per value of a server setting (a sweep): one
 * build is one unit of the index-build iteration, run by the engine's sequential executor. The
 * server is started through `restart` (the lab's, given by the CLI), so nothing here knows the lab.
 */
import fs from 'node:fs';
import { ResourceSampler } from '../resources/sampler';
import type { IndexStore } from '../store/index-results';
import { LogFollower, phasesOf, type PhaseRules } from './phases';
import type { IndexBuild } from '../core/index-builds';
import { plannedIteration } from '../engine/iterations/planned';
import { sequential, type SequentialPlan } from '../engine/executors/sequential';

export interface IndexedServer {
  name: string;
  pidFile: string;
  datadir: string;
  logFile: string;
  /** Its log lines that start each phase of a build. */
  phases: PhaseRules;
  /** Settings the build needs to be observable (e.g. Esplora's debug log for its phases). */
  observe?: Record<string, string>;
}

export type Restart = (
  server: string,
  opts: { settings: Record<string, string>; onStarted: (pid: number) => void },
) => Promise<{ indexMs: number }>;

export interface IndexBenchOptions {
  servers: IndexedServer[];
  repeat: number;
  /** A setting swept over values; one set of builds per value. */
  sweep?: { name: string; values: string[] };
  sampleEveryMs: number;
  log?: (line: string) => void;
}

function readFrom(file: string, offset: number): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= offset) return null;
    const buf = Buffer.alloc(size - offset);
    fs.readSync(fd, buf, 0, buf.length, offset);
    return buf;
  } finally {
    fs.closeSync(fd);
  }
}

/** One build of the plan: a server, the setting values it is started with, and which repeat. */
interface PlannedBuild {
  server: IndexedServer;
  swept: Record<string, string>;
  repeat: number;
}

/**
 * The builds as an iteration of the engine's sequential executor: each pass is one repeat of
 * every server with every setting value, one build at a time (two would share the machine they
 * are timed on), so that drift over the run touches every server alike.
 */
export async function runIndexBench(store: IndexStore, runId: number, opts: IndexBenchOptions, restart: Restart): Promise<IndexBuild[]> {
  const builds: IndexBuild[] = [];
  const values = opts.sweep ? opts.sweep.values.map((v) => ({ [opts.sweep!.name]: v })) : [{}];
  let failure: { err: unknown } | undefined;
  const iteration = plannedIteration<PlannedBuild>({
    servers: opts.servers.length,
    unitsOf: (part) => opts.servers.flatMap((server) => values.map((swept) => ({ server, swept, repeat: part.pass + 1 }))).values(),
    run: async (unit) => void builds.push(await buildOnce(store, runId, opts, restart, unit)),
    failed: (err) => {
      failure ??= { err };
      pacer.stop();
    },
  });
  const plan: SequentialPlan = { kind: 'sequential', passes: opts.repeat, warmup: 0, concurrency: 1 };
  const pacer = sequential.create(iteration, plan);
  await pacer.run();
  if (failure) throw failure.err;
  return builds;
}

async function buildOnce(store: IndexStore, runId: number, opts: IndexBenchOptions, restart: Restart, { server, swept, repeat }: PlannedBuild): Promise<IndexBuild> {
  const log = opts.log ?? (() => undefined);
  const settings = { ...(server.observe ?? {}), ...swept };
  const buildId = store.addBuild(runId, server.name, swept, repeat);
  const samples = store.buildSamples(runId, buildId);
  const sampler = new ResourceSampler([{ name: server.name, pidFile: server.pidFile, datadir: server.datadir }], samples.write, {
    everyMs: opts.sampleEveryMs,
    dirEveryMs: 1_000,
    host: true,
  });
  let follower: LogFollower | undefined;
  let started = false;
  const { indexMs } = await restart(server.name, {
    settings,
    onStarted: () => {
      follower = new LogFollower(server.logFile, Date.now(), readFrom);
      follower.start(50);
      sampler.start();
      started = true;
    },
  }).finally(async () => {
    follower?.stop();
    if (started) await sampler.stop();
  });
  const [cost] = samples.summaries();
  const phases = phasesOf(server.phases, follower?.lines ?? [], indexMs);
  const build: IndexBuild = {
    server: server.name,
    settings: swept,
    repeat,
    indexMs,
    cpuS: cost?.cpuSeconds ?? null,
    peakRssBytes: cost?.peakRssBytes ?? null,
    readBytes: cost?.readBytes ?? null,
    writeBytes: cost?.writeBytes ?? null,
    datadirBytes: cost?.datadirEndBytes ?? null,
    phases,
  };
  store.finishBuild(buildId, build);
  const label = Object.entries(swept).map(([k, v]) => ` ${k}=${v}`).join('');
  log(`${server.name}${label} #${repeat}: at the tip in ${(indexMs / 1000).toFixed(2)} s`);
  return build;
}
