/**
 * Electrum (spesmilo/electrum), read in its interface.py, network.py, synchronizer.py, verifier.py
 * and wallet.py: it negotiates a protocol range (1.4–1.6), asks server.features, then in parallel
 * subscribes to headers, asks fee estimates for 25/10/5/2 blocks, the relay fee (mempool.get_info
 * on 1.6, blockchain.relayfee before), the fee histogram, banner, donation address and peers. Its
 * synchronizer subscribes every address of the window, in shuffled order; a status that is not null
 * brings a get_history, each transaction it does not have a transaction.get, and its verifier a
 * get_merkle per confirmed one. Windows are 20 receive and 10 change addresses past the last used
 * one. Each of its jobs holds at most 100 requests in flight; ours holds 100 for the whole wallet.
 *
 * Left out: the header download (a wallet that ran before has its headers) and the other servers
 * Electrum keeps connected for headers only.
 */
import { seededShuffle } from '../../core/random';
import { SCAN } from '../../core/wallet-scan';
import type { WalletChain, WalletLine } from '../../core/wallet-line';
import type { Findings } from '../findings';
import type { WalletSession } from '../session';
import { historyOf, optional, Pending, scriptAt, type Workload } from './workload';

const GAP = SCAN.electrum.gap;
const FEE_TARGETS = [25, 10, 5, 2];

export const electrumWorkload: Workload = {
  name: 'electrum',
  summary: 'Electrum: single requests, ≤ 100 in flight; subscribe the gap window, history per used address, every transaction and Merkle proof',
  maxInFlight: 100,
  client: { clientName: 'electrum-bench (electrum workload)' },
  subscribes: true,
  async sync(s, w, found) {
    await serverInfo(s);
    const work = new Pending();
    const fetchTx = fetcher(s, found, work);
    await Promise.all((['receive', 'change'] as const).map((chain) => subscribeWindow(s, w, chain, found, fetchTx, work)));
    await work.settle();
  },
};

/** The courtesy and fee calls: a server lacking one is still usable, as it is for Electrum. */
async function serverInfo(s: WalletSession): Promise<void> {
  await optional(s, () => s.call('server-info', 'server.features'));
  const relay = Number(s.protocol) >= 1.6 ? s.call('fees', 'mempool.get_info') : s.call('fees', 'blockchain.relayfee');
  const headers = s.call('headers', 'blockchain.headers.subscribe');
  await Promise.allSettled([
    headers,
    ...FEE_TARGETS.map((n) => s.call('fees', 'blockchain.estimatefee', [n])),
    relay,
    s.call('fees', 'mempool.get_fee_histogram'),
    s.call('server-info', 'server.banner'),
    s.call('server-info', 'server.donation_address'),
    s.call('server-info', 'server.peers.subscribe'),
  ]);
  // Some servers (Esplora's electrs) close the connection on a method they lack: Electrum would
  // connect again, and so do we; the headers subscription is the one call it cannot do without.
  if (!s.connection.usable) await s.reconnect();
  if (!(await succeeded(headers))) await s.call('headers', 'blockchain.headers.subscribe');
}

function succeeded(p: Promise<unknown>): Promise<boolean> {
  return p.then(
    () => true,
    () => false,
  );
}

/** Subscribes the chain's window, widening it while used addresses come within the gap of its end. */
async function subscribeWindow(
  s: WalletSession,
  w: WalletLine,
  chain: WalletChain,
  found: Findings,
  fetchTx: (txid: string, height: number) => void,
  work: Pending,
): Promise<void> {
  let lastUsed = -1;
  let next = 0;
  while (next <= lastUsed + GAP[chain]) {
    const indexes: number[] = [];
    for (; next <= lastUsed + GAP[chain]; next++) indexes.push(next);
    const statuses = await Promise.all(
      seededShuffle(indexes, `${w.wallet}/${chain}/${indexes[0]}`).map(async (i) => {
        const { scripthash } = scriptAt(w, chain, i);
        const status = await s.call<string | null>('subscribe', 'blockchain.scripthash.subscribe', [scripthash]);
        found.subscribed.add(scripthash);
        if (status !== null) {
          work.add(
            s.call('history', 'blockchain.scripthash.get_history', [scripthash]).then((answer) => {
              const history = historyOf(answer, scripthash);
              found.histories.set(scripthash, history);
              for (const e of history) fetchTx(e.tx_hash, e.height);
            }),
          );
        }
        return { i, used: status !== null };
      }),
    );
    for (const st of statuses) if (st.used) lastUsed = Math.max(lastUsed, st.i);
  }
}

/** transaction.get once per transaction, then its proof if it is confirmed. */
function fetcher(s: WalletSession, found: Findings, work: Pending) {
  const asked = new Set<string>();
  return (txid: string, height: number): void => {
    if (asked.has(txid)) return;
    asked.add(txid);
    work.add(
      s.call<string>('transactions', 'blockchain.transaction.get', [txid]).then((hex) => {
        found.rawTxs.set(txid, hex);
        if (height > 0) return s.call('proofs', 'blockchain.transaction.get_merkle', [txid, height]);
      }),
    );
  };
}
