/**
 * How an Esplora-style REST API pages an address's history (`/scripthash/:hash/txs`, then
 * `/scripthash/:hash/txs/chain/:last_seen_txid`): what its server profile says and the REST client
 * follows. Shared vocabulary because the profiles (src/servers/) and the REST client
 * (src/esplora/) may not import each other.
 */
export interface RestHistoryPaging {
  /**
   * When the first page says more confirmed transactions follow: `confirmed` entries reaching
   * `full` (Blockstream's: its mempool transactions, then 25 confirmed), or all its `entries`
   * reaching it (mempool's fork: up to 50 in all, the mempool's first and the confirmed after).
   */
  firstPage: { counts: 'confirmed' | 'entries'; full: number };
  /** Confirmed transactions a `/txs/chain/:last_seen_txid` page holds when more follow. */
  chainPage: number;
}
