/**
 * Prometheus 2.42 from Debian's package: it scrapes the lab servers that export metrics (those with
 * a `metrics` port: electrs, Esplora and mempool's electrs; ElectrumX and Fulcrum export none in Prometheus' format)
 * and receives the generator's `--out prometheus-rw=URL`, so one page graphs the load beside what
 * the servers say of it. Remote-write receiving and native histograms are features off by default.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LabConfig, LabPaths } from './config';
import { spawnDetached } from './processes';
import { portsOf } from './servers/lab-server';
import { LAB_SERVERS, type LabComponent } from './servers/registry';
import { makeDirs } from '../core/output-path';

/** The URL `--out prometheus-rw=` takes to write into the lab's Prometheus. */
export function prometheusUrl(cfg: LabConfig): string {
  return `http://${cfg.host}:${cfg.ports.prometheus}`;
}

export function remoteWriteUrl(cfg: LabConfig): string {
  return `${prometheusUrl(cfg)}/api/v1/write`;
}

/** prometheus.yml: one job per server that runs and exports metrics, scraped each second. */
export function prometheusConfig(cfg: LabConfig, components: readonly LabComponent[]): string {
  const h = cfg.host;
  const targets: Array<[string, number]> = [['prometheus', cfg.ports.prometheus]];
  for (const s of LAB_SERVERS) if (s.metrics && components.includes(s.name)) targets.push([s.name, portsOf(cfg, s)[s.metrics]]);
  const jobs = targets.map(([job, port]) => `  - job_name: ${job}\n    static_configs:\n      - targets: ['${h}:${port}']\n`);
  return `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n${jobs.join('')}`;
}

/** Starts Prometheus on a wiped store; returns its pid. Ready when `/-/ready` answers 200. */
export function startPrometheus(cfg: LabConfig, paths: LabPaths, components: readonly LabComponent[]): number {
  fs.rmSync(paths.prometheusDir, { recursive: true, force: true });
  makeDirs(paths.prometheusDir);
  const config = path.join(paths.prometheusDir, 'prometheus.yml');
  fs.writeFileSync(config, prometheusConfig(cfg, components));
  return spawnDetached(paths, {
    name: 'prometheus',
    command: cfg.bin.prometheus,
    args: [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(paths.prometheusDir, 'data')}`,
      `--web.listen-address=${cfg.host}:${cfg.ports.prometheus}`,
      '--web.enable-remote-write-receiver',
      '--enable-feature=native-histograms',
    ],
  });
}

/** Whether Prometheus answers ready; undefined while it does not (for waitReady). */
export async function prometheusReady(cfg: LabConfig): Promise<true | undefined> {
  const res = await fetch(`${prometheusUrl(cfg)}/-/ready`).catch(() => undefined);
  return res?.ok ? true : undefined;
}
