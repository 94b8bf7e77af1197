/**
 * `cluster simulate`: the rendered Job's pods run as local processes, so the whole path (render,
 * start barrier, shards, merge, verdict) is exercised without a cluster. Each process gets exactly
 * the pod's command and environment; what a cluster would provide is simulated, and only that:
 * - the completion index (the annotation the pod's env reads) is set per process;
 * - the ConfigMap's files are written to a directory standing for its mount, and the results
 *   volume is the directory of the --db the user gave (only shard 1 writes it);
 * - each pod's IP is a loopback address of its own (ELECTRUM_BENCH_SOURCE_ADDRESS: its Electrum
 *   connections come from there), and shard 1's DNS name resolves to pod 0's address;
 * - `electrum-bench` on the PATH is this checkout's launcher, as it is the image's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { CONFIG_DIR, RESULTS_DIR, coordinatorHost } from './render';

interface Container {
  command: string[];
  env: Array<{ name: string; value?: string; valueFrom?: unknown }>;
}

export interface SimulateOptions {
  /** The objects renderManifests returned. */
  objects: Array<Record<string, unknown>>;
  /** Scratch directory: the ConfigMap's files, each pod's TMPDIR. */
  workDir: string;
  /** Stands for the results volume. */
  resultsDir: string;
  /** This checkout's launcher (bin/electrum-bench.js). */
  launcher: string;
  /** Pod 0's stdout (the merged summary); everything else goes to `log`, each line prefixed. */
  out: NodeJS.WritableStream;
  log: NodeJS.WritableStream;
}

export interface PodExit {
  index: number;
  code: number;
}

/** The simulated IP of pod `index`: 127.0.0.2 for the coordinator, then one up per pod. */
export const podAddress = (index: number): string => `127.0.0.${index + 2}`;

const kindOf = (objects: Array<Record<string, unknown>>, kind: string) => objects.find((o) => o.kind === kind) as Record<string, any>;

export class Simulation {
  private readonly children: ChildProcess[] = [];

  constructor(private readonly opts: SimulateOptions) {}

  /** Runs every pod to its end; their exit codes in index order. */
  async run(): Promise<PodExit[]> {
    const { objects, workDir } = this.opts;
    const job = kindOf(objects, 'Job');
    const configMap = kindOf(objects, 'ConfigMap');
    const name = job.metadata.name as string;
    const shards = job.spec.completions as number;
    const container = job.spec.template.spec.containers[0] as Container;

    const configDir = path.join(workDir, 'config');
    fs.mkdirSync(configDir, { recursive: true });
    for (const [key, text] of Object.entries((configMap.data ?? {}) as Record<string, string>)) fs.writeFileSync(path.join(configDir, key), text);
    const binDir = path.join(workDir, 'bin');
    fs.mkdirSync(binDir, { recursive: true });
    fs.writeFileSync(path.join(binDir, 'electrum-bench'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(this.opts.launcher)} "$@"\n`, { mode: 0o755 });

    const mountedPath = (p: string): string => {
      if (p.startsWith(CONFIG_DIR + '/')) return path.join(configDir, p.slice(CONFIG_DIR.length + 1));
      if (p.startsWith(RESULTS_DIR + '/')) return path.join(this.opts.resultsDir, p.slice(RESULTS_DIR.length + 1));
      return p;
    };
    // A path as an argument of its own, or after `--option=`.
    const mounted = (arg: string): string => {
      const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
      return eq > 0 ? arg.slice(0, eq + 1) + mountedPath(arg.slice(eq + 1)) : mountedPath(arg);
    };
    const exits: Array<Promise<PodExit>> = [];
    for (let index = 0; index < shards; index++) {
      const podDir = path.join(workDir, `pod-${index}`);
      fs.mkdirSync(path.join(podDir, 'tmp'), { recursive: true });
      // The toolkit's own settings (where the lab is, its ports) pass through, as an image's env would carry them.
      const own = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('ELECTRUM_BENCH_')));
      const env: NodeJS.ProcessEnv = { ...own, PATH: `${binDir}:${process.env.PATH ?? ''}`, HOME: process.env.HOME, TMPDIR: path.join(podDir, 'tmp') };
      for (const v of container.env) env[v.name] = v.value !== undefined ? this.dns(v.value, name) : String(index); // the only valueFrom is the completion index
      env.ELECTRUM_BENCH_SOURCE_ADDRESS = podAddress(index);
      // The command's first three words are the shell and its script; the rest are the pod's arguments.
      const [shell, flag, script, ...args] = container.command;
      const child = spawn(shell, [flag, script, ...args.map(mounted)], { cwd: podDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      this.children.push(child);
      const prefix = `[${name}-${index}] `;
      const relay = (stream: NodeJS.ReadableStream, to: NodeJS.WritableStream, prefixed: boolean) =>
        readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => to.write((prefixed ? prefix : '') + line + '\n'));
      relay(child.stdout!, index === 0 ? this.opts.out : this.opts.log, index !== 0);
      relay(child.stderr!, this.opts.log, true);
      exits.push(
        new Promise((resolve) => {
          child.on('error', (err) => {
            this.opts.log.write(`${prefix}cannot start: ${err.message}\n`);
            resolve({ index, code: 127 });
          });
          child.on('exit', (code, signal) => resolve({ index, code: code ?? 128 + (signal ? os.constants.signals[signal] : 0) }));
        }),
      );
    }
    return Promise.all(exits);
  }

  /** The cluster's DNS for shard 1's name, simulated: `NAME-0.NAME` is pod 0's address. */
  private dns(value: string, name: string): string {
    return value.split(coordinatorHost(name)).join(podAddress(0));
  }

  /** Passes a stop on to every pod, as the kubelet would. */
  stop(signal: NodeJS.Signals): void {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
  }
}
