/** The wallet workloads by name. */
import { UserError } from '../../core/user-error';
import { bdkWorkload } from './bdk';
import { electrumWorkload } from './electrum';
import { sparrowWorkload } from './sparrow';
import type { Workload } from './workload';

export type { Workload } from './workload';

export const WORKLOADS: readonly Workload[] = [electrumWorkload, sparrowWorkload, bdkWorkload];
export const WORKLOAD_NAMES = WORKLOADS.map((w) => w.name);

export function workloadNamed(name: string): Workload {
  const w = WORKLOADS.find((x) => x.name === name);
  if (!w) throw new UserError(`--workload: unknown ${JSON.stringify(name)}; known: ${WORKLOAD_NAMES.join(', ')}`);
  return w;
}
