/**
 * The three questions every stage asks an Electrum server about an address, by their short names
 * (options, results database, reports) and the protocol methods that ask them (protocol 1.4+,
 * "blockchain.scripthash.*"). The dataset counts with them, the bench measures them.
 */
export const METHOD_NAMES = ['balance', 'history', 'utxos'] as const;
export type MethodName = (typeof METHOD_NAMES)[number];

export const METHOD_RPC: Record<MethodName, string> = {
  balance: 'blockchain.scripthash.get_balance',
  history: 'blockchain.scripthash.get_history',
  utxos: 'blockchain.scripthash.listunspent',
};

export function isMethodName(s: string): s is MethodName {
  return (METHOD_NAMES as readonly string[]).includes(s);
}
