/**
 * How a lab server learns of a new block. The lab's adapter sends no ZMQ or other push, so every
 * server polls; the interval bounds its block-notification latency and is stored beside those
 * figures. Each server's file says how it polls (`polling`), with the interval the lab starts it
 * with or, where it has no setting, the one fixed in its source.
 */
import type { Polling } from './servers/lab-server';
import { isLabServerName, labServer } from './servers/registry';
import { versionOf } from './versions';

/** How a lab server polls, its servers in other versions (`electrumx-1.20.0`) included, as their release does. */
export function labPolling(server: string): Polling | undefined {
  if (isLabServerName(server)) return labServer(server).polling;
  const other = versionOf(server);
  return other && labServer(other.server).otherVersions?.polling(other.version);
}
