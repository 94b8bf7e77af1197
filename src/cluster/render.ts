/**
 * The Kubernetes objects of a coordinated load test: a ConfigMap with the files the run reads, a
 * headless Service that gives shard 1's pod its DNS name, and an Indexed Job whose pods are the
 * shards. Each object is checked against the Kubernetes schema (kubernetes-models) before it is
 * returned, so what is printed is what `kubectl apply` accepts.
 *
 * Indexed Job facts this relies on (Kubernetes ≥ 1.24): every pod gets its index in the
 * `batch.kubernetes.io/job-completion-index` annotation; with `subdomain` set to a headless
 * Service of the same name, pod I is reachable as `NAME-I.NAME`; `backoffLimit: 0` with
 * `restartPolicy: Never` means a failed pod fails the Job, never re-runs into a test under way.
 */
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { UserError } from '../core/user-error';

/** Where the pod finds the ConfigMap's files and writes its results. */
export const CONFIG_DIR = '/config';
export const RESULTS_DIR = '/results';
export const DEFAULT_COORDINATOR_PORT = 7450;
/** The Kubernetes limit on one ConfigMap's data. */
export const CONFIG_MAP_MAX_BYTES = 1024 * 1024;

export interface ClusterSpec {
  name: string;
  image: string;
  shards: number;
  /** `load`'s arguments as the pod runs them (files already under CONFIG_DIR, --db under RESULTS_DIR). */
  loadArgs: string[];
  /** ConfigMap key → file contents. */
  files: Record<string, string>;
  port: number;
  /** Each shard on another node (required pod anti-affinity on the hostname). */
  spread: boolean;
  cpuRequest: string;
  memoryRequest: string;
  /** A PersistentVolumeClaim mounted at RESULTS_DIR (else an emptyDir: the summary is in shard 1's log). */
  resultsClaim?: string;
}

/**
 * The pod's shell line: the completion index (0-based) becomes `--shard I+1/N`; the load
 * arguments follow as the shell's own arguments ("$@"), so no argument is ever re-quoted.
 */
export const POD_SCRIPT = 'exec electrum-bench load --shard "$((JOB_COMPLETION_INDEX + 1))/$SHARDS" --coordinator "$COORDINATOR" "$@"';

/** The coordinator's address as the other pods reach it: shard 1 is pod index 0. */
export const coordinatorHost = (name: string): string => `${name}-0.${name}`;

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function specProblems(spec: Pick<ClusterSpec, 'name' | 'shards' | 'port' | 'files'>): string[] {
  const problems: string[] = [];
  // The pods' hostnames are NAME-INDEX, and a hostname is a DNS label of at most 63 characters.
  const longest = `${spec.name}-${Math.max(0, spec.shards - 1)}`;
  if (!DNS_LABEL.test(spec.name) || longest.length > 63) problems.push(`--name ${JSON.stringify(spec.name)}: a lowercase DNS label (a-z, 0-9, '-'), short enough that ${JSON.stringify(longest)} fits in 63 characters`);
  if (!Number.isInteger(spec.shards) || spec.shards < 2) problems.push(`--shards ${spec.shards}: at least 2 (one shard needs no cluster)`);
  if (!Number.isInteger(spec.port) || spec.port < 1 || spec.port > 65535) problems.push(`--port ${spec.port}: a TCP port`);
  const bytes = Object.values(spec.files).reduce((t, f) => t + Buffer.byteLength(f), 0);
  if (bytes > CONFIG_MAP_MAX_BYTES) problems.push(`the run's files are ${bytes} bytes, over a ConfigMap's ${CONFIG_MAP_MAX_BYTES}: use a smaller dataset`);
  return problems;
}

export function renderManifests(spec: ClusterSpec): Array<Record<string, unknown>> {
  const problems = specProblems(spec);
  if (problems.length) throw new UserError(problems.join('; '));
  const labels = { 'app.kubernetes.io/name': 'electrum-bench', 'app.kubernetes.io/instance': spec.name };
  // The pods carry the labels too: the Service and the anti-affinity select on them.
  const podSelector = labels;
  const configMap = new ConfigMap({
    metadata: { name: spec.name, labels },
    data: spec.files,
  });
  const service = new Service({
    metadata: { name: spec.name, labels },
    spec: {
      clusterIP: 'None',
      // Shard 1 must be reachable by name as soon as it runs, not once it is "ready".
      publishNotReadyAddresses: true,
      selector: podSelector,
      ports: [{ name: 'coordinator', port: spec.port, targetPort: spec.port }],
    },
  });
  const job = new Job({
    metadata: { name: spec.name, labels },
    spec: {
      completionMode: 'Indexed',
      completions: spec.shards,
      parallelism: spec.shards,
      backoffLimit: 0,
      template: {
        metadata: { labels },
        spec: {
          restartPolicy: 'Never',
          subdomain: spec.name,
          // The image runs as its `node` user (uid/gid 1000): a results claim must be writable by it.
          securityContext: { fsGroup: 1000 },
          ...(spec.spread
            ? {
                affinity: {
                  podAntiAffinity: {
                    requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: podSelector } }],
                  },
                },
              }
            : {}),
          // JOB_COMPLETION_INDEX declared from the annotation: clusters whose controller does not
          // inject it yet have it too.
          containers: [
            {
              name: 'shard',
              image: spec.image,
              command: ['sh', '-c', POD_SCRIPT, 'electrum-bench', ...spec.loadArgs],
              env: [
                {
                  name: 'JOB_COMPLETION_INDEX',
                  valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
                },
                { name: 'SHARDS', value: String(spec.shards) },
                { name: 'COORDINATOR', value: `${coordinatorHost(spec.name)}:${spec.port}` },
              ],
              ports: [{ name: 'coordinator', containerPort: spec.port }],
              resources: { requests: { cpu: spec.cpuRequest, memory: spec.memoryRequest } },
              volumeMounts: [
                { name: 'config', mountPath: CONFIG_DIR, readOnly: true },
                { name: 'results', mountPath: RESULTS_DIR },
              ],
            },
          ],
          volumes: [
            { name: 'config', configMap: { name: spec.name } },
            spec.resultsClaim ? { name: 'results', persistentVolumeClaim: { claimName: spec.resultsClaim } } : { name: 'results', emptyDir: {} },
          ],
        },
      },
    },
  });
  const objects = [configMap, service, job];
  for (const o of objects) {
    try {
      o.validate();
    } catch (err) {
      // Ours to fix, not the user's: what we render must always be valid.
      throw new Error(`rendered ${o.kind} ${spec.name} does not validate: ${(err as Error).message}`);
    }
  }
  return objects.map((o) => JSON.parse(JSON.stringify(o.toJSON())) as Record<string, unknown>);
}

/** What `kubectl apply -f -` reads: the objects as one v1 List. */
export function manifestList(objects: Array<Record<string, unknown>>): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 2) + '\n';
}
