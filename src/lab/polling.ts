/**
 * How each lab server learns of a new block. The lab's adapter sends no ZMQ or other push, so
 * every server polls; the interval bounds its block-notification latency and is stored beside
 * those figures. Values are the ones the lab starts each server with (electrumx.ts, electrs.ts,
 * fulcrum.ts) or, for Esplora, the interval fixed in its source (src/bin/electrs.rs).
 */
import type { ElectrumServerName } from './config';

export const LAB_POLLING: Record<ElectrumServerName, { pollMs: number; how: string }> = {
  electrumx: { pollMs: 200, how: 'DAEMON_POLL_INTERVAL_BLOCKS=200 ms (the lab\'s; its default is 5 s)' },
  electrs: { pollMs: 1000, how: '--wait-duration-secs 1 (the lab\'s; its default is 10 s)' },
  esplora: { pollMs: 5000, how: 'every 5 s, fixed in its main loop (a SIGUSR1 wakes it early)' },
  fulcrum: { pollMs: 500, how: 'polltime = 0.5 s (the lab\'s; its default is 2 s)' },
};

/**
 * How a lab server polls, its servers in other versions (`electrumx-1.20.0`) included: those run
 * with the lab's ElectrumX settings, but e-x 1.16 has no DAEMON_POLL_INTERVAL_BLOCKS (1.17 added
 * it) and polls every 5 s, fixed in block_processor.py.
 */
export function labPolling(server: string): { pollMs: number; how: string } | undefined {
  if (server in LAB_POLLING) return LAB_POLLING[server as ElectrumServerName];
  const m = /^electrumx-(\d+)\.(\d+)\.\d+$/.exec(server);
  if (!m) return undefined;
  const before117 = Number(m[1]) === 1 && Number(m[2]) < 17;
  return before117 ? { pollMs: 5000, how: 'every 5 s, fixed (e-x before 1.17 has no DAEMON_POLL_INTERVAL_BLOCKS)' } : LAB_POLLING.electrumx;
}
