/**
 * The questions the stages ask an Electrum server, by their short names (options, results
 * database, reports) and the protocol methods that ask them (protocol 1.4+).
 *
 * METHOD_NAMES are the three questions about an address ("blockchain.scripthash.*") that every
 * stage asks: the dataset counts with them, load mixes them, the bench measures them by default.
 * WALLET_CALL_NAMES are the other calls a wallet makes for each address it syncs (fetch each
 * transaction of its history, prove it into a block header, read the mempool); only the bench
 * measures them, since they need what the dataset's ground truth says of each history.
 */
export const METHOD_NAMES = ['balance', 'history', 'utxos'] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

export const WALLET_CALL_NAMES = ['tx', 'merkle', 'header', 'mempool'] as const;
export type WalletCallName = (typeof WALLET_CALL_NAMES)[number];

export const BENCH_METHOD_NAMES = [...METHOD_NAMES, ...WALLET_CALL_NAMES] as const;
export type BenchMethodName = MethodName | WalletCallName;

export const METHOD_RPC: Record<MethodName, string> = {
  balance: 'blockchain.scripthash.get_balance',
  history: 'blockchain.scripthash.get_history',
  utxos: 'blockchain.scripthash.listunspent',
};

export const WALLET_CALL_RPC: Record<WalletCallName, string> = {
  tx: 'blockchain.transaction.get',
  merkle: 'blockchain.transaction.get_merkle',
  header: 'blockchain.block.header',
  mempool: 'blockchain.scripthash.get_mempool',
};

export function isMethodName(s: string): s is MethodName {
  return (METHOD_NAMES as readonly string[]).includes(s);
}

export function isWalletCallName(s: string): s is WalletCallName {
  return (WALLET_CALL_NAMES as readonly string[]).includes(s);
}

export function isBenchMethodName(s: string): s is BenchMethodName {
  return isMethodName(s) || isWalletCallName(s);
}
