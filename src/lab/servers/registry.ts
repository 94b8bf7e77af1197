/**
 * The lab's Electrum servers, in start order (and the order `lab status` lists them): a new server
 * is its file in this folder, one line here, and its step in scripts/install-lab.sh.
 */
import { electrs } from './electrs';
import { electrumx } from './electrumx';
import { esplora } from './esplora';
import { fulcrum } from './fulcrum';
import { mempoolElectrs } from './mempool-electrs';
import type { LabConfig } from '../config';
import { portsOf, type LabServer } from './lab-server';

export const LAB_SERVERS = [electrumx, electrs, esplora, fulcrum, mempoolElectrs] as const;

export type LabServerName = (typeof LAB_SERVERS)[number]['name'];
export const LAB_SERVER_NAMES: readonly LabServerName[] = LAB_SERVERS.map((s) => s.name);

/** A server of the registry, its name one of theirs. */
export type RegisteredServer = LabServer<LabServerName>;

export function isLabServerName(name: string): name is LabServerName {
  return (LAB_SERVER_NAMES as readonly string[]).includes(name);
}

/** The server of that name; only for a name known to be one. */
export function labServer(name: LabServerName): RegisteredServer {
  return LAB_SERVERS.find((s) => s.name === name)!;
}

/** The lab's processes, in start order (`down` stops them in reverse): the node and its adapter, the servers, Prometheus. */
export const LAB_COMPONENTS = ['btcd', 'adapter', ...LAB_SERVER_NAMES, 'prometheus'] as const;
export type LabComponent = (typeof LAB_COMPONENTS)[number];
/** What `lab up --without` can leave out: any server, and Prometheus. */
export const LAB_OPTIONAL = [...LAB_SERVER_NAMES, 'prometheus'] as const;
export type LabOptional = (typeof LAB_OPTIONAL)[number];

/** Every port the lab's own processes bind (its servers in other versions aside), in port order, each named by what binds it. */
export function labComponentPorts(cfg: LabConfig): Array<[string, number]> {
  const { versionsBase: _, ...infrastructure } = cfg.ports;
  const servers = LAB_SERVERS.flatMap((s) => Object.entries(portsOf(cfg, s)).map(([slot, port]): [string, number] => [`${s.name} ${slot}`, port]));
  return [...Object.entries(infrastructure), ...servers].sort((a, b) => a[1] - b[1]);
}
