/**
 * `--out NAME=ARG`, `--dashboard [[HOST:]PORT]` and `--dashboard-export FILE`: how every run kind
 * that can be watched while it runs (bench, load, their wallet forms) takes them, checks them with
 * its other options and opens them before any work.
 */
import type { Argv } from 'yargs';
import { DEFAULT_DASHBOARD_PORT, parseDashboardAddress } from '../engine/outputs/dashboard/dashboard';
import { outputsHelp, parseOutputs } from '../engine/outputs/registry';
import type { WatchPlan } from '../runs/outputs';

export type { WatchPlan } from '../runs/outputs';

export interface WatchArgs {
  out?: string[];
  dashboard?: string;
  'dashboard-export'?: string;
}

export const WATCH_FLAGS = ['out', 'dashboard', 'dashboard-export'] as const;

export function withWatchOptions<T>(y: Argv<T>) {
  return y
    .option('out', { type: 'string', array: true, describe: `also send each second's figures and the summary to an output as the run goes: ${outputsHelp()} (repeatable)` })
    .option('dashboard', { type: 'string', describe: `follow the run on a local web page, updated every second: [HOST:]PORT (default 127.0.0.1:${DEFAULT_DASHBOARD_PORT}; 0 picks a free port)` })
    .option('dashboard-export', { type: 'string', describe: 'at the end, save the dashboard with the whole run as one HTML file (works offline)' });
}

/** Whether any of the three was given. */
export function watched(a: WatchArgs): boolean {
  return (a.out?.length ?? 0) > 0 || a.dashboard !== undefined || a['dashboard-export'] !== undefined;
}

/** Every problem with the three, added to `problems`; nothing is claimed yet. */
export function watchPlan(a: WatchArgs, problems: string[]): WatchPlan {
  const outputs = parseOutputs(a.out ?? [], problems);
  const listen = a.dashboard === undefined ? undefined : parseDashboardAddress(a.dashboard, problems);
  const dashboard = listen || a['dashboard-export'] ? { listen, exportFile: a['dashboard-export'] || undefined } : undefined;
  return { outputs, dashboard };
}
