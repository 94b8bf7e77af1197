/**
 * What "confirmed" means everywhere in the project (dataset counts, --verify, the lab's ground
 * truth). Electrum servers report a mempool entry's height as 0, or -1 when it spends an
 * unconfirmed output (protocol docs, blockchain.scripthash.get_history); a mined one has its
 * block height, which is at least 1 for anything an address can receive.
 */
export function isConfirmedHeight(height: number): boolean {
  return height > 0;
}

/** How many history or listunspent entries are confirmed. */
export function confirmedCount(entries: ReadonlyArray<{ height: number }>): number {
  let n = 0;
  for (const e of entries) if (isConfirmedHeight(e.height)) n++;
  return n;
}
