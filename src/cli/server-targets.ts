/**
 * Which servers a command measures, from its `--server`, `--lab`, `--websocket`, `--host`, `--port`
 * and `--tls` options (bench and load take the same ones). The lab is resolved here, in the CLI, so nothing
 * under src/bench/ or src/load/ knows it.
 */
import { completeTarget, parseServerSpec, ServerTarget, checkPort } from '../servers/targets';
import { transportOf } from '../transports/registry';
import { labTargets, labWebSocketTargets } from './lab-targets';
import { UserError } from '../core/user-error';

export interface TargetArgs {
  server?: string[];
  lab: boolean;
  /** With `lab`: the lab servers' WebSocket listeners too. */
  websocket?: boolean;
  host?: string;
  port?: number;
  tls: boolean;
}

/** The servers to measure, and the lab CA to trust when a lab server is measured over TLS. */
export async function resolveTargets(a: TargetArgs): Promise<{ targets: ServerTarget[]; labCaFile?: string }> {
  const specs = a.server ?? [];
  if (a.websocket && !a.lab) throw new UserError('--websocket goes with --lab; for a server of your own write --server PROFILE@ws://HOST:PORT (or wss://)');
  if (a.lab) {
    if (specs.length) throw new UserError('--lab measures every lab server; do not combine it with --server');
    const lab = await labTargets({ tls: a.tls });
    if (lab.length === 0) throw new UserError('--lab --tls: no running lab server listens with TLS');
    if (a.websocket) {
      const ws = (await labWebSocketTargets()).filter((t) => !a.tls || t.tls);
      if (ws.length === 0) throw new UserError('--lab --websocket: no running lab server serves WebSocket');
      lab.push(...ws);
    }
    return { targets: lab.map(({ caFile: _ca, ...t }) => t), labCaFile: lab.find((t) => t.caFile)?.caFile };
  }
  if (specs.length === 0) throw new UserError('no server to measure: give --server PROFILE[@HOST:PORT] (or --lab)');
  const port = a.port === undefined ? undefined : checkPort(a.port, '--port');
  if ((a.host !== undefined || port !== undefined) && specs.length > 1) {
    throw new UserError('--host/--port apply to a single --server; with several, write each as PROFILE@HOST:PORT');
  }
  const targets: ServerTarget[] = [];
  let labCaFile: string | undefined;
  for (const spec of specs) {
    const version = await labVersionTarget(spec, a.tls);
    if (version) {
      targets.push(version);
      continue;
    }
    const partial = parseServerSpec(spec);
    if (a.tls) partial.tls = true;
    if (partial.host === undefined && a.host === undefined && port === undefined) {
      // No address given: a running lab's server of that profile (on its TLS port if asked), if there is one.
      const lab = (await labTargets({ quiet: true, tls: partial.tls })).find((t) => t.profile === partial.profile);
      if (lab) {
        const { caFile, ...target } = lab;
        labCaFile ??= caFile;
        targets.push({ ...target, name: partial.name });
        continue;
      }
    }
    targets.push(completeTarget(partial, { host: a.host, port }));
  }
  const names = new Set<string>();
  for (const t of targets) {
    if (names.has(t.name)) throw new UserError(`--server: two servers are named ${t.name}; label them, e.g. a=${t.profile}@HOST:PORT`);
    names.add(t.name);
  }
  return { targets, labCaFile };
}

/**
 * What asks for a server over WebSocket (`--websocket`, or a `--server` at ws:// or wss://), read
 * from the options alone so a command can refuse it before anything is resolved or connected.
 */
export function webSocketAsked(a: TargetArgs): string | undefined {
  if (a.websocket) return '--websocket';
  const spec = a.server?.find((s) => {
    try {
      return parseServerSpec(s).websocket === true;
    } catch {
      // A malformed --server is resolveTargets' to name, in its own words.
      return false;
    }
  });
  return spec === undefined ? undefined : `--server ${spec}`;
}

/**
 * `--server electrumx-1.20.0` (or `LABEL=electrumx-1.20.0`): a server the running lab runs in
 * another version, named as the lab names it. Its name is no profile (profiles have no dots), so
 * nothing else could have meant it.
 */
async function labVersionTarget(spec: string, tls: boolean): Promise<ServerTarget | undefined> {
  const m = /^(?:([A-Za-z0-9_.-]+)=)?([a-z]+-\d+\.\d+\.\d+)$/.exec(spec);
  if (!m) return undefined;
  const found = (await labTargets({ quiet: true })).find((t) => t.name === m[2]);
  if (!found) throw new UserError(`--server: no server ${m[2]} runs in the lab; start it with: npm run lab -- up --with ${m[2].replace('-', '@')}`);
  if (tls) throw new UserError(`--server ${spec}: the lab's servers in other versions listen on plain TCP only; drop --tls`);
  const { caFile: _ca, ...target } = found;
  return { ...target, name: m[1] ?? target.name };
}

/** Wallets speak the Electrum protocol: a target that does not is left out when the lab brought it (in a line on stderr), refused when named. */
export function electrumTargets(targets: ServerTarget[], lab: boolean, asking = '--workload speaks'): ServerTarget[] {
  const others = targets.filter((t) => !transportOf(t).speaksElectrum);
  const names = others.map((t) => t.name).join(', ');
  if (others.length && !lab) throw new UserError(`${asking} the Electrum protocol; ${names} is an Esplora-style REST API`);
  // Said, not done silently: a reader of the results would otherwise look for the lab's REST rows.
  if (others.length) process.stderr.write(`--lab: ${names} left out (${asking} the Electrum protocol; ${others.length === 1 ? 'it is an Esplora-style REST API' : 'they are Esplora-style REST APIs'})\n`);
  return targets.filter((t) => transportOf(t).speaksElectrum);
}
