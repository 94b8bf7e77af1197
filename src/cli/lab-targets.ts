/**
 * The running lab's Electrum servers as bench targets, found through the lab's own status (never
 * guessed from default ports). Resolved here, in the CLI, so the bench itself never knows the lab.
 */
import fs from 'node:fs';
import { UserError } from '../core/user-error';
import { targetUrl, type ServerTarget } from '../servers/targets';
import type { LabStatus } from '../lab/lab';
import type { ColdStart } from '../bench/cold-passes';

type Registry = typeof import('../lab/servers/registry');

/**
 * A lab server; over TLS it comes with the lab CA that signed its certificate. `server` is the lab
 * server whose process serves it (Esplora's REST API is Esplora's), absent for a server in another
 * version (`lab up --with`).
 */
export type LabTarget = ServerTarget & { caFile?: string; server?: string };

/**
 * With `tls`, only the servers the lab also serves over TLS, on their TLS ports. A server with a
 * REST API (Esplora, mempool's electrs) is also measured over it, as a target named by its profile
 * (`esplora-rest`, `mempool-electrs-rest`).
 * Servers in other versions (`lab up --with`) are named SERVER-VERSION (`electrumx-1.20.0`) and
 * listen on plain TCP only.
 */
export async function labTargets(opts: { quiet?: boolean; tls?: boolean } = {}): Promise<LabTarget[]> {
  const { labStatus } = await import('../lab/lab');
  const targets = targetsOf(await import('../lab/servers/registry'), await labStatus(), !!opts.tls);
  if (targets.length === 0 && !opts.quiet) throw new UserError('--lab: no lab server is running; start it with: npm run lab -- up');
  return targets;
}

function targetsOf({ LAB_SERVERS, labServer }: Registry, status: LabStatus, tls: boolean): LabTarget[] {
  const targets: LabTarget[] = [];
  for (const { name, profile, rest: restApi } of LAB_SERVERS) {
    const server = status.electrum[name];
    if (!server || !server.running) continue;
    if (!tls) targets.push({ name, profile, host: server.host, port: server.port, tls: false, server: name });
    else if (server.tls) targets.push({ name, profile, host: server.tls.host, port: server.tls.port, tls: true, caFile: server.tls.caFile, server: name });
    if (!tls && restApi && server.rest) {
      const rest = new URL(server.rest);
      targets.push({ name: restApi.profile, profile: restApi.profile, host: rest.hostname, port: Number(rest.port), tls: false, server: name });
    }
  }
  if (!tls) for (const v of status.versions) if (v.running) targets.push({ name: v.name, profile: labServer(v.server).profile, host: v.host, port: v.port, tls: false });
  return targets;
}

/** `--lab --websocket`: the running lab's WebSocket listeners. */
export async function labWebSocketTargets(): Promise<LabTarget[]> {
  const { labStatus } = await import('../lab/lab');
  return webSocketTargetsOf(await import('../lab/servers/registry'), await labStatus());
}

/** The lab servers' WebSocket listeners, named SERVER-ws and SERVER-wss (wss:// with the lab CA). */
function webSocketTargetsOf({ LAB_SERVERS }: Registry, status: LabStatus): LabTarget[] {
  return LAB_SERVERS.flatMap(({ name, profile }) => {
    const ws = status.electrum[name]?.running ? status.electrum[name]?.websocket : undefined;
    if (!ws) return [];
    return [
      { name: `${name}-ws`, profile, host: ws.ws.host, port: ws.ws.port, tls: false, websocket: true, server: name },
      { name: `${name}-wss`, profile, host: ws.wss.host, port: ws.wss.port, tls: true, websocket: true, caFile: ws.wss.caFile, server: name },
    ];
  });
}

/**
 * Which targets are servers of the running lab (by address, whether given by --lab or by hand),
 * mapped to the lab server each is: their setup and process are then known, and the lab can mine.
 */
export async function labServersAmong(targets: ServerTarget[]): Promise<{ servers: Map<string, string>; walletsPath: string }> {
  const { matches, walletsPath } = await labMatches(targets);
  return { servers: new Map([...matches].map(([name, match]) => [name, match.name])), walletsPath };
}

/** Each target that is a server of the running lab (by address), as the lab's target it is. */
async function labMatches(targets: ServerTarget[]): Promise<{ matches: Map<string, LabTarget>; walletsPath: string }> {
  const { labStatus } = await import('../lab/lab');
  const registry = await import('../lab/servers/registry');
  const status = await labStatus();
  const lab = [...targetsOf(registry, status, false), ...targetsOf(registry, status, true), ...webSocketTargetsOf(registry, status)];
  const matches = new Map<string, LabTarget>();
  for (const t of targets) {
    const match = lab.find((l) => l.host === t.host && l.port === t.port && l.tls === t.tls && !!l.websocket === !!t.websocket);
    if (match) matches.set(t.name, match);
  }
  return { matches, walletsPath: status.walletsPath };
}

/**
 * `--cold`: the lab servers whose processes serve the targets, each once (Esplora's Electrum port
 * and REST API are one process), to be restarted on their own index before each cold pass. Every
 * target must be one of the lab's own servers: a server given by host and port that merely shares a
 * lab server's port or profile is never restarted, nor a server in another version.
 */
export async function labColdStart(targets: ServerTarget[], whileStopped: () => Promise<void>): Promise<ColdStart> {
  const { matches } = await labMatches(targets);
  const foreign = targets.filter((t) => matches.get(t.name)?.server === undefined);
  if (foreign.length) {
    const named = foreign.map((t) => `${t.name} (${targetUrl(t)})`).join(', ');
    throw new UserError(`--cold restarts every measured server before each cold pass, and ${named} ${foreign.length === 1 ? 'is not one' : 'are not ones'} the lab runs as its own; measure the lab's servers, e.g. --lab with the lab up`);
  }
  const { isLabServerName } = await import('../lab/servers/registry');
  const processes = new Map(targets.map((t) => [t.name, matches.get(t.name)!.server!]));
  const servers = [...new Set(processes.values())].filter(isLabServerName);
  const { labColdRestart } = await import('../lab/lab');
  return { restart: () => labColdRestart(servers, whileStopped), processes };
}

/** Each lab target's block polling setup, by target name. */
export async function labSetups(onLab: Map<string, string>): Promise<Map<string, unknown>> {
  const { labPolling } = await import('../lab/polling');
  const out = new Map<string, unknown>();
  for (const [target, server] of onLab) {
    const p = labPolling(server);
    if (p) out.set(target, { polling: p.how, pollMs: p.pollMs });
  }
  return out;
}

/**
 * The lab's dataset, for a command given no --dataset: only when every target is a server of the
 * running lab (found by port), whose chain that dataset describes.
 */
export async function labDatasetFor(targets: ReadonlyArray<{ host: string; port: number }>): Promise<string> {
  const { labStatus } = await import('../lab/lab');
  const status = await labStatus();
  const labPorts = new Set(
    Object.values(status.electrum).flatMap((e) =>
      e ? [e.port, e.tls?.port, e.websocket?.ws.port, e.websocket?.wss.port, e.rest ? Number(new URL(e.rest).port) : undefined].filter((p): p is number => p !== undefined) : [],
    ),
  );
  for (const v of status.versions) if (v.running) labPorts.add(v.port);
  if (targets.length > 0 && targets.every((t) => labPorts.has(t.port)) && fs.existsSync(status.datasetPath)) return status.datasetPath;
  throw new UserError('--dataset FILE is required (only lab servers default to the lab dataset)');
}
