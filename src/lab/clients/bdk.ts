/**
 * The real BDK (PyPI bdkpython, installed by `scripts/install-lab.sh bdk`) syncing one wallet from
 * scratch through bdk_sync.py, `syncs` times in one process: what the `bdk` workload is held to.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { WalletLine } from '../../core/wallet-line';
import { labConfig } from '../config';

export interface BdkSync {
  /** From opening its Electrum client to the end of its full scan. */
  ms: number;
  confirmed: number;
  unconfirmed: number;
  txs: number;
}

const SCRIPT = path.join(__dirname, 'bdk_sync.py');

/** Async on purpose: a recording proxy in the caller's process must keep forwarding meanwhile. */
export async function bdkSyncs(url: string, wallet: WalletLine, syncs = 1): Promise<BdkSync[]> {
  if (!wallet.descriptors) throw new Error(`wallet ${wallet.wallet} has no descriptors: the real BDK cannot import it`);
  const { stdout } = await promisify(execFile)(
    labConfig().bin.bdkPython,
    [SCRIPT, '--url', url, '--receive', wallet.descriptors.receive, '--change', wallet.descriptors.change, '--syncs', String(syncs)],
    { encoding: 'utf8', timeout: 600_000 },
  );
  return stdout.trim().split('\n').map((l) => JSON.parse(l) as BdkSync);
}
