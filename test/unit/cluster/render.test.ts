/**
 * `cluster render`: the manifests of a coordinated test, checked against the Kubernetes schema and
 * run through a real shell; the command line run in this process (test/support/cli).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { manifestList, renderManifests, specProblems, type ClusterSpec } from '../../../src/cluster/render';
import { cli } from '../../support/cli';

const spec = (over: Partial<ClusterSpec> = {}): ClusterSpec => ({
  name: 'eb-test',
  image: 'electrum-bench:test',
  shards: 4,
  loadArgs: ['--server', 'electrumx@10.0.0.5:50001', '--dataset', '/config/d.jsonl', '--rate', '200', '--db', '/results/load.sqlite', '--threshold', "latency:p(99)<250 and 'quoted' \"too\""],
  files: { 'd.jsonl': '{"address":"x"}\n' },
  port: 7450,
  spread: true,
  cpuRequest: '1',
  memoryRequest: '512Mi',
  ...over,
});

const MODELS: Record<string, { new (data: any): { validate(): void } }> = { ConfigMap, Service, Job };

function items(s: ClusterSpec): Array<Record<string, any>> {
  const list = JSON.parse(manifestList(renderManifests(s)));
  expect(list).toMatchObject({ apiVersion: 'v1', kind: 'List' });
  return list.items;
}

test('what is printed validates against the Kubernetes schema, read back from the printed text', () => {
  const objects = items(spec());
  expect(objects.map((o) => o.kind)).toEqual(['ConfigMap', 'Service', 'Job']);
  for (const o of objects) expect(() => new MODELS[o.kind](o).validate()).not.toThrow();
});

test('the schema check can fail: a Job with a completion mode Kubernetes does not have is refused', () => {
  const job = items(spec()).find((o) => o.kind === 'Job')!;
  job.spec.completionMode = 'Sharded';
  expect(() => new Job(job).validate()).toThrow(/completionMode/);
});

test('an Indexed Job of N pods that never re-runs a shard, reachable as NAME-0.NAME through a headless Service', () => {
  const [configMap, service, job] = items(spec());
  expect(job.spec).toMatchObject({ completionMode: 'Indexed', completions: 4, parallelism: 4, backoffLimit: 0 });
  const pod = job.spec.template.spec;
  expect(pod.restartPolicy).toBe('Never');
  expect(pod.subdomain).toBe(service.metadata.name);
  expect(service.spec.clusterIP).toBe('None');
  expect(service.spec.selector).toEqual(job.spec.template.metadata.labels);
  const env = Object.fromEntries(pod.containers[0].env.map((e: any) => [e.name, e.value ?? e.valueFrom.fieldRef.fieldPath]));
  expect(env).toEqual({ JOB_COMPLETION_INDEX: "metadata.annotations['batch.kubernetes.io/job-completion-index']", SHARDS: '4', COORDINATOR: 'eb-test-0.eb-test:7450' });
  expect(pod.containers[0].resources.requests).toEqual({ cpu: '1', memory: '512Mi' });
  expect(pod.volumes).toContainEqual({ name: 'config', configMap: { name: configMap.metadata.name } });
  expect(pod.volumes).toContainEqual({ name: 'results', emptyDir: {} });
  expect(configMap.data).toEqual({ 'd.jsonl': '{"address":"x"}\n' });
});

test('--spread asks for one shard per node; without it the scheduler may stack them', () => {
  const job = items(spec()).find((o) => o.kind === 'Job')!;
  expect(job.spec.template.spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution).toEqual([
    { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: job.spec.template.metadata.labels } },
  ]);
  expect(items(spec({ spread: false })).find((o) => o.kind === 'Job')!.spec.template.spec.affinity).toBeUndefined();
  const claimed = items(spec({ resultsClaim: 'eb-results' })).find((o) => o.kind === 'Job')!.spec.template.spec;
  expect(claimed.volumes).toContainEqual({ name: 'results', persistentVolumeClaim: { claimName: 'eb-results' } });
});

test('the pod command, run by a real shell, turns completion index I into --shard I+1/N and passes every argument through unchanged', () => {
  const job = items(spec()).find((o) => o.kind === 'Job')!;
  const [shell, flag, script, ...args] = job.spec.template.spec.containers[0].command;
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-render-'));
  try {
    // Stands in for the image's electrum-bench: prints each argument on a line of its own.
    fs.writeFileSync(path.join(bin, 'electrum-bench'), '#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done\n', { mode: 0o755 });
    for (const index of [0, 3]) {
      const out = execFileSync(shell, [flag, script, ...args], {
        env: { PATH: `${bin}:${process.env.PATH}`, JOB_COMPLETION_INDEX: String(index), SHARDS: '4', COORDINATOR: 'eb-test-0.eb-test:7450' },
        encoding: 'utf8',
      });
      expect(out.split('\n').slice(0, -1)).toEqual(['load', '--shard', `${index + 1}/4`, '--coordinator', 'eb-test-0.eb-test:7450', ...spec().loadArgs]);
    }
  } finally {
    fs.rmSync(bin, { recursive: true, force: true });
  }
});

test('every problem with the cluster options at once: a name too long for a pod hostname, one shard, a dataset over a ConfigMap', () => {
  const problems = specProblems({ name: 'x'.repeat(62), shards: 1, port: 7450, files: { big: 'a'.repeat(1024 * 1024 + 1) } });
  expect(problems).toHaveLength(3);
  expect(problems.join('\n')).toMatch(/--name .*63 characters[\s\S]*--shards 1: at least 2[\s\S]*over a ConfigMap/);
  expect(specProblems({ name: 'Upper_case', shards: 2, port: 7450, files: {} })[0]).toMatch(/lowercase DNS label/);
  expect(() => renderManifests(spec({ shards: 1 }))).toThrow(/--shards 1/);
});

describe('the command line', () => {
  const cluster = (args: string[]) => cli('cluster', args);
  const dataset = path.join(os.tmpdir(), `eb-render-${process.pid}.jsonl`);
  beforeAll(() => fs.writeFileSync(dataset, '{"address":"bcrt1qx","scripthash":"00","type":"p2wpkh","txCount":1}\n'));
  afterAll(() => fs.rmSync(dataset, { force: true }));

  test('render prints the List; the dataset goes into the ConfigMap and the pod reads it from /config', async () => {
    const r = await cluster(['render', '--shards', '3', '--name', 'eb', '--', 'load', '--server', 'electrumx@10.0.0.5:50001', '--dataset', dataset, '--rate', '90', '--db', 'out/x.sqlite']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const [configMap, , job] = JSON.parse(r.stdout).items;
    expect(Object.values(configMap.data)).toEqual([fs.readFileSync(dataset, 'utf8')]);
    const args = job.spec.template.spec.containers[0].command.slice(4);
    expect(args).toEqual(['--server', 'electrumx@10.0.0.5:50001', '--dataset', `/config/${path.basename(dataset)}`, '--rate', '90', '--db', '/results/x.sqlite']);
  });

  test('a wallet load renders too: the wallets file goes into the ConfigMap, each pod holds its share', async () => {
    const wallets = path.join(os.tmpdir(), `eb-render-wallets-${process.pid}.jsonl`);
    // The pods read it; render only carries it.
    fs.writeFileSync(wallets, '{"wallet":"w1"}\n');
    try {
      const r = await cluster(['render', '--shards', '4', '--name', 'eb', '--', 'load', '--workload', 'electrum', '--server', 'electrumx@10.0.0.5:50001', '--wallets', wallets, '--hold', '1000', '--notify', '--db', 'w.sqlite']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      const objects = JSON.parse(r.stdout).items as Array<Record<string, any>>;
      for (const o of objects) expect(() => new MODELS[o.kind](o).validate()).not.toThrow();
      const [configMap, , job] = objects;
      expect(Object.values(configMap.data)).toEqual([fs.readFileSync(wallets, 'utf8')]);
      expect(job.spec.template.spec.containers[0].command.slice(4)).toEqual(['--workload', 'electrum', '--server', 'electrumx@10.0.0.5:50001', '--wallets', `/config/${path.basename(wallets)}`, '--hold', '1000', '--notify', '--db', '/results/w.sqlite']);
    } finally {
      fs.rmSync(wallets, { force: true });
    }
  });

  test.each([
    [['--', 'load', '--workload', 'electrum', '--server', 'electrumx@10.0.0.5:50001', '--hold', '10'], /give --wallets FILE/],
    [['--', 'load', '--workload', 'electrum', '--server', 'electrumx@10.0.0.5:50001', '--wallets', 'D', '--hold', '1'], /--hold 1: a test of 2 shards holds at least one wallet on each/],
    [['--', 'load', '--server', 'electrumx@10.0.0.5:50001', '--dataset', 'D', '--rate', '10', '--shard', '1/2'], /--shard is set for each pod by the Job/],
    [['--', 'load', '--server', 'electrumx@10.0.0.5:50001', '--rate', '10'], /give --dataset FILE/],
    [['--', 'load', '--server', 'electrumx@10.0.0.5:50001', '--dataset', 'D', '--rate', '-5', '--pipeline', '0'], /--rate.*; .*--pipeline/],
    [['--', 'bench', '--server', 'x'], /starting with load/],
    [['--', 'load', '--server', 'electrumx@10.0.0.5:50001', '--dataset', 'D', '--rate', '10', '--out', 'prometheus-rw=https://me:hunter2@prom.example/api/v1/write'], /holds a user or password/],
    [['--', 'load', '--server', 'electrumx@10.0.0.5:50001', '--dataset', 'D', '--rate', '10', '--dashboard', '0'], /--dashboard would show one shard/],
  ])('a mistake in %j is one line, exit 2, nothing printed on stdout', async (rest, message) => {
    const r = await cluster(['render', '--shards', '2', ...rest.map((a) => (a === 'D' ? dataset : a))]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).not.toMatch(/hunter2/);
  });
});
