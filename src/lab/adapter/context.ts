/**
 * What an RPC handler can reach: btcd, the chain reads, the spender index, and per-HTTP-request
 * memos so a batch of N getmempoolentry calls reads btcd's mempool once, not N times.
 */
import type { BtcdClient } from './btcd-client';
import type { ChainData } from './chain-data';
import { btcdMempool, type BtcdMempool } from './mempool-entry';
import type { SpenderIndex } from './spender-index';

export interface AdapterDeps {
  btcd: BtcdClient;
  data: ChainData;
  spenders: SpenderIndex;
}

/** btcd's `getinfo`: the only place btcd reports its version and relay fee. */
export interface BtcdInfo {
  version: number; // e.g. 240200 for v0.24.2
  protocolversion: number;
  blocks: number;
  connections: number;
  relayfee: number; // BTC/kvB
}

export class RequestContext {
  private pool?: Promise<BtcdMempool>;
  private info?: Promise<BtcdInfo>;

  constructor(readonly deps: AdapterDeps) {}

  get btcd(): BtcdClient {
    return this.deps.btcd;
  }

  mempool(): Promise<BtcdMempool> {
    return (this.pool ??= btcdMempool(this.deps.btcd));
  }

  btcdInfo(): Promise<BtcdInfo> {
    return (this.info ??= this.deps.btcd.get<BtcdInfo>('getinfo'));
  }
}

export type Handler = (params: unknown[], ctx: RequestContext) => Promise<unknown>;
