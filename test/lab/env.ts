/**
 * What tests need to reach the lab that globalSetup brought up: the node's Core-dialect RPC (via the
 * adapter) with its cookie file, each Electrum server's host/port, and the generated dataset.
 * globalSetup writes it to a file because it runs in another context than the test files.
 */
import fs from 'node:fs';
import { labConfig, labPaths } from '../../src/lab/config';
import type { LabStatus } from '../../src/lab/lab';
import { LAB_SERVERS, LAB_SERVER_NAMES, type LabServerName } from '../../src/lab/servers/registry';
import type { ProfileName } from '../../src/servers/profiles';

export interface LabEnv {
  rpcUrl: string; // http://127.0.0.1:PORT, the adapter in front of btcd
  rpcCookieFile: string; // user:password
  /** Every lab server but those this run goes without (built from source: Esplora, Fulcrum). */
  electrum: Record<'electrumx' | 'electrs', Endpoint> & Partial<Record<LabServerName, Endpoint>>;
  /** Lab servers this run goes without, and why (their source could not be had): their tests skip saying so. */
  without: Partial<Record<BuiltFromSource, string>>;
  /** Real wallets installed from a source archive that this run goes without, and why: their tests skip saying so. */
  clientsWithout: Partial<Record<ArchivedClient, string>>;
  esploraRest?: string; // Esplora's REST API, http://127.0.0.1:PORT
  /** Every running lab server's REST API (Esplora's, mempool's electrs'): its URL and the profile it is measured as. */
  rest: Partial<Record<LabServerName, { url: string; profile: ProfileName }>>;
  fulcrumTls?: { host: string; port: number; caFile: string };
  electrumxTls: { host: string; port: number; caFile: string }; // ElectrumX's TLS port, signed by the lab CA
  /** The WebSocket listeners of the servers that have them (ElectrumX; Fulcrum when this run has it). */
  websocket: Partial<Record<LabServerName, { ws: Endpoint; wss: Endpoint & { caFile: string } }>>;
  datasetPath: string;
  manifestPath: string;
  walletsPath: string;
  seed: string;
  tip: number;
  /** The lab's Prometheus: its HTTP API, and where remote-write goes. */
  prometheus: { url: string; remoteWrite: string };
}

interface Endpoint {
  host: string;
  port: number;
}
/** A lab server built from source (`install.fromSource`): a run may go without it (and says why). */
export type BuiltFromSource = LabServerName;
/** The real wallets installed from a source archive (install-lab.sh targets): a run may go without them too. */
export type ArchivedClient = 'electrum-wallet';

export function labEnvFile(): string {
  return labPaths(labConfig()).testEnvFile;
}

export function envFromStatus(s: LabStatus, without: LabEnv['without'] = {}, clientsWithout: LabEnv['clientsWithout'] = {}): LabEnv {
  const endpoint = (name: LabServerName) => {
    const e = s.electrum[name];
    if (!e) throw new Error(`lab status has no ${name} endpoint`);
    return { host: e.host, port: e.port };
  };
  if (s.node.tip === null || s.seed === null) throw new Error('the lab is not up');
  const tls = s.electrum.electrumx?.tls;
  if (!tls) throw new Error('lab status has no electrumx TLS endpoint');
  return {
    rpcUrl: s.node.rpcUrl,
    rpcCookieFile: s.node.cookieFile,
    electrum: {
      electrumx: endpoint('electrumx'),
      electrs: endpoint('electrs'),
      ...Object.fromEntries(LAB_SERVER_NAMES.filter((n) => !(n in without)).map((n) => [n, endpoint(n)])),
    },
    without,
    clientsWithout,
    esploraRest: s.electrum.esplora?.running ? s.electrum.esplora.rest : undefined,
    rest: Object.fromEntries(
      LAB_SERVERS.flatMap(({ name, rest }) => {
        const e = s.electrum[name];
        return rest && e?.running && e.rest ? [[name, { url: e.rest, profile: rest.profile }]] : [];
      }),
    ),
    fulcrumTls: s.electrum.fulcrum?.running && s.electrum.fulcrum.tls ? { host: s.electrum.fulcrum.tls.host, port: s.electrum.fulcrum.tls.port, caFile: s.electrum.fulcrum.tls.caFile } : undefined,
    electrumxTls: { host: tls.host, port: tls.port, caFile: tls.caFile },
    websocket: Object.fromEntries(
      LAB_SERVER_NAMES.flatMap((n) => {
        const ws = s.electrum[n]?.running ? s.electrum[n]?.websocket : undefined;
        return ws ? [[n, { ws: { host: ws.ws.host, port: ws.ws.port }, wss: { host: ws.wss.host, port: ws.wss.port, caFile: ws.wss.caFile } }]] : [];
      }),
    ),
    datasetPath: s.datasetPath,
    manifestPath: s.manifestPath,
    walletsPath: s.walletsPath,
    seed: s.seed,
    tip: s.node.tip,
    prometheus: s.prometheus ?? missing('prometheus'),
  };
}

function missing(what: string): never {
  throw new Error(`lab status has no ${what}`);
}

export function labEnv(): LabEnv {
  const file = labEnvFile();
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LabEnv;
  } catch (err) {
    throw new Error(`no lab test environment at ${file} (jest's globalSetup test/lab/global-setup.ts writes it): ${(err as Error).message}`);
  }
}

/**
 * `describe` for tests of a lab server built from source, or, when this run goes without it
 * (its source could not be had), `describe.skip` whose title says why: reported, never silently passed.
 */
export function describeBuilt(server: BuiltFromSource, title: string, fn: () => void): void {
  const reason = labEnv().without[server];
  if (reason === undefined) describe(title, fn);
  else describe.skip(`${title} [skipped: ${server} is not in this lab: ${reason}]`, fn);
}

/** `describe` for tests of a real wallet installed from a source archive, or `describe.skip` saying why this run has none. */
export function describeWithClient(client: ArchivedClient, title: string, fn: () => void): void {
  const reason = labEnv().clientsWithout?.[client];
  if (reason === undefined) describe(title, fn);
  else describe.skip(`${title} [skipped: ${client} is not installed here: ${reason}]`, fn);
}
