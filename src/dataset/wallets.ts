/**
 * Synthetic wallets for chains whose keys we do not hold (`dataset wallets`): a dataset's addresses
 * grouped, one script type per wallet as in a real one, until each wallet's transactions reach a
 * size drawn from the range; each chain is padded with scripts that have never been used, which a
 * gap-limit scan also queries (random hashes no script hashes to: the server answers them empty,
 * as it answers a fresh address). Documented as synthetic: two addresses of one wallet may share
 * a transaction, so a wallet's transaction count is only an upper bound (its balance is exact as of
 * the dataset's tip).
 */
import { createHash } from 'node:crypto';
import type { DatasetLine } from '../core/dataset-line';
import type { WalletLine, WalletScript } from '../core/wallet-line';
import { seededRandom, seededShuffle } from '../core/random';
import { fullSyncCalls } from '../core/wallet-scan';

export interface SyntheticOptions {
  minTxs: number;
  maxTxs: number;
  /** Wallets at most (all the dataset allows when absent). */
  count?: number;
  gap: number;
  seed: string;
}

export function syntheticWallets(lines: DatasetLine[], o: SyntheticOptions): WalletLine[] {
  const rand = seededRandom(`${o.seed}/sizes`);
  const byType = new Map<string, DatasetLine[]>();
  for (const l of seededShuffle(lines, `${o.seed}/order`)) {
    if (l.txCount === 0 || l.txCount > o.maxTxs) continue;
    const pool = byType.get(l.type);
    if (pool) pool.push(l);
    else byType.set(l.type, [l]);
  }
  const wallets: WalletLine[] = [];
  // Log-uniform sizes: as many small wallets per decade as large ones.
  const drawSize = () => Math.round(Math.exp(Math.log(o.minTxs) + rand() * (Math.log(o.maxTxs) - Math.log(o.minTxs))));
  for (const [type, pool] of [...byType].sort(([a], [b]) => (a < b ? -1 : 1))) {
    let at = 0;
    while (at < pool.length && (o.count === undefined || wallets.length < o.count)) {
      const target = drawSize();
      const members: DatasetLine[] = [];
      let txs = 0;
      while (at < pool.length && txs < target && txs + pool[at].txCount <= o.maxTxs) {
        txs += pool[at].txCount;
        members.push(pool[at++]);
      }
      if (txs < o.minTxs) break; // what is left of this type cannot make one more wallet
      const name = `synthetic-${type}-${String(wallets.length).padStart(4, '0')}`;
      wallets.push({
        wallet: name,
        origin: 'synthetic',
        type: members[0].type,
        gap: o.gap,
        chains: {
          receive: [...members.map((m): WalletScript => ({ address: m.address, scripthash: m.scripthash })), ...unused(o.seed, name, 'receive', o.gap)],
          change: unused(o.seed, name, 'change', o.gap),
        },
        expected: {
          txCount: txs,
          txCountExact: false,
          balance: {
            confirmed: members.reduce((s, m) => s + m.balance.confirmed, 0),
            unconfirmed: members.reduce((s, m) => s + m.balance.unconfirmed, 0),
          },
          usedScripts: { receive: members.length, change: 0 },
          fullSync: fullSyncCalls({ receive: members.length, change: 0 }, txs, txs),
        },
      });
    }
  }
  return wallets;
}

function unused(seed: string, wallet: string, chain: string, n: number): WalletScript[] {
  return Array.from({ length: n }, (_, i) => ({
    address: null,
    scripthash: createHash('sha256').update(`electrum-bench/synthetic-unused\0${seed}\0${wallet}\0${chain}\0${i}`).digest('hex'),
  }));
}
