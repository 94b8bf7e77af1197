/** An unused wallet: the electrum workload subscribes 20 receive and 10 change scripts, nothing more. */
import { fullSyncCalls } from '../../src/core/wallet-scan';
import type { WalletLine } from '../../src/core/wallet-line';

const hex64 = (n: number) => n.toString(16).padStart(64, '0');
const usedScripts = { receive: 0, change: 0 };

export const unusedWallet: WalletLine = {
  wallet: 'w',
  origin: 'synthetic',
  type: 'p2wpkh',
  gap: 0,
  chains: { receive: Array.from({ length: 20 }, (_, i) => ({ address: null, scripthash: hex64(i + 1) })), change: Array.from({ length: 10 }, (_, i) => ({ address: null, scripthash: hex64(i + 100) })) },
  expected: { txCount: 0, txCountExact: true, balance: { confirmed: 0, unconfirmed: 0 }, usedScripts, fullSync: fullSyncCalls(usedScripts, 0, 0) },
};
