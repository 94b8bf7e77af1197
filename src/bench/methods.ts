/**
 * The measured methods: what each asks the server, how big its answer is, and whether the answer
 * agrees with the dataset (for --verify). The three address questions are checked against the
 * dataset line, confirmed entries only: a dataset describes the chain at its recorded tip, and
 * mempool entries come and go. The wallet calls are checked against the chain facts of the
 * address's wallet subject (wallet-subjects.ts) and, where a wallet would, by hashing.
 */
import { confirmedCount as countConfirmed } from '../core/confirmed';
import { METHOD_RPC, WALLET_CALL_RPC, type BenchMethodName } from '../core/methods';
import type { DatasetLine } from '../core/dataset-line';
import { headerHash, merkleProblem, txidOfRaw } from './proofs';
import type { WalletSubject } from './wallet-subjects';

export { BENCH_METHOD_NAMES, METHOD_NAMES, isBenchMethodName, isMethodName, isWalletCallName, type BenchMethodName, type MethodName } from '../core/methods';

/** One address as a call sees it: its dataset line and, when wallet calls are measured, its wallet subject. */
export interface CallSubject {
  line: DatasetLine;
  wallet?: WalletSubject;
}

export interface MethodSpec {
  name: BenchMethodName;
  rpc: string;
  params(s: CallSubject): unknown[];
  /** History length, UTXO count, confirmed balance in satoshis, raw transaction bytes, branch length, header bytes, or mempool entries. */
  resultSize(result: unknown): number | null;
  /** A description of the disagreement with the dataset, or null when the answer agrees. */
  mismatch(result: unknown, s: CallSubject): string | null;
}

const confirmedCount = (r: unknown): number => countConfirmed(r as Array<{ height: number }>);
const byScripthash = (s: CallSubject): unknown[] => [s.line.scripthash];
const lengthOf = (r: unknown): number | null => (Array.isArray(r) ? r.length : null);
const hexBytes = (r: unknown): number | null => (typeof r === 'string' ? r.length / 2 : null);
const HEX = /^(?:[0-9a-f]{2})+$/i;
// The CLI builds a subject for every address before a wallet call is planned (src/cli/bench.ts).
const subjectOf = (s: CallSubject): WalletSubject => s.wallet!;

export const METHODS: Record<BenchMethodName, MethodSpec> = {
  balance: {
    name: 'balance',
    rpc: METHOD_RPC.balance,
    params: byScripthash,
    resultSize: (r) => (r && typeof r === 'object' ? Number((r as { confirmed: number }).confirmed) : null),
    mismatch: (r, { line }) => {
      const b = r as { confirmed: number; unconfirmed: number };
      if (!b || typeof b.confirmed !== 'number') return `not a balance: ${JSON.stringify(r)}`;
      if (b.confirmed !== line.balance.confirmed) return `confirmed ${b.confirmed} != expected ${line.balance.confirmed}`;
      return null;
    },
  },
  history: {
    name: 'history',
    rpc: METHOD_RPC.history,
    params: byScripthash,
    resultSize: lengthOf,
    mismatch: (r, { line }) => {
      if (!Array.isArray(r)) return `not a history: ${JSON.stringify(r).slice(0, 80)}`;
      const n = confirmedCount(r);
      return n === line.txCount ? null : `${n} confirmed history entries != expected ${line.txCount}`;
    },
  },
  utxos: {
    name: 'utxos',
    rpc: METHOD_RPC.utxos,
    params: byScripthash,
    resultSize: lengthOf,
    mismatch: (r, { line }) => {
      if (!Array.isArray(r)) return `not a UTXO list: ${JSON.stringify(r).slice(0, 80)}`;
      const n = confirmedCount(r);
      return n === line.utxoCount ? null : `${n} confirmed UTXOs != expected ${line.utxoCount}`;
    },
  },
  tx: {
    name: 'tx',
    rpc: WALLET_CALL_RPC.tx,
    // Without `verbose`: the raw hex every server serves (the verbose form is ElectrumX's and Fulcrum's, from the node).
    params: (s) => [subjectOf(s).txid],
    resultSize: hexBytes,
    mismatch: (r, s) => {
      if (typeof r !== 'string' || !HEX.test(r)) return `not a raw transaction: ${JSON.stringify(r).slice(0, 80)}`;
      let txid: string;
      try {
        txid = txidOfRaw(r);
      } catch (err) {
        return `not a transaction: ${(err as Error).message}`;
      }
      const want = subjectOf(s).txid;
      return txid === want ? null : `raw transaction hashes to ${txid}, asked for ${want}`;
    },
  },
  merkle: {
    name: 'merkle',
    rpc: WALLET_CALL_RPC.merkle,
    params: (s) => [subjectOf(s).txid, subjectOf(s).height],
    resultSize: (r) => lengthOf((r as { merkle?: unknown } | null)?.merkle),
    // The root comes from the chain facts' header, not from the server's blockchain.block.header:
    // the proof is then checked against a source the server cannot influence, and each sample
    // stays one call (a second call inside it would be measured too).
    mismatch: (r, s) => merkleProblem(r, subjectOf(s).txid, subjectOf(s).height, subjectOf(s).header),
  },
  header: {
    name: 'header',
    rpc: WALLET_CALL_RPC.header,
    params: (s) => [subjectOf(s).height],
    resultSize: hexBytes,
    mismatch: (r, s) => {
      if (typeof r !== 'string' || !/^[0-9a-f]{160}$/i.test(r)) return `not an 80-byte header: ${JSON.stringify(r).slice(0, 80)}`;
      const { height, header } = subjectOf(s);
      const [got, want] = [headerHash(r), headerHash(header)];
      return got === want ? null : `header at ${height} hashes to ${got}, the block there is ${want}`;
    },
  },
  mempool: {
    name: 'mempool',
    rpc: WALLET_CALL_RPC.mempool,
    params: byScripthash,
    resultSize: lengthOf,
    mismatch: (r, s) => {
      if (!Array.isArray(r)) return `not a mempool list: ${JSON.stringify(r).slice(0, 80)}`;
      const key = (e: { tx_hash?: unknown; height?: unknown }) => `${String(e.tx_hash)}:${String(e.height)}`;
      const got = (r as Array<{ tx_hash?: unknown; height?: unknown }>).map(key).sort();
      const want = subjectOf(s).mempool.map(key).sort();
      return got.join() === want.join() ? null : `mempool [${got.join(', ')}] != expected [${want.join(', ')}]`;
    },
  },
};
