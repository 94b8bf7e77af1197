/**
 * The adapter's chain store against btcd itself (asked directly on its own RPC port): every block,
 * header, block hash and transaction of the lab chain the adapter serves, over JSON-RPC and REST, is
 * byte-equal to btcd's answer; what the store does not hold (mempool transactions, verbose forms)
 * still comes from btcd.
 */
import { labEnv } from './lab/env';
import { labConfig } from '../src/lab/config';
import { NodeRpc } from '../src/node/rpc';
import { transactionSpans } from '../src/lab/adapter/chain-store';

const env = labEnv();
let adapter: NodeRpc;
let btcd: NodeRpc;

beforeAll(() => {
  adapter = new NodeRpc({ url: env.rpcUrl, cookieFile: env.rpcCookieFile });
  btcd = new NodeRpc({ url: `http://127.0.0.1:${labConfig().ports.btcdRpc}`, cookieFile: env.rpcCookieFile });
});
afterAll(() => {
  adapter.close();
  btcd.close();
});

async function rest(path: string): Promise<Buffer> {
  const res = await fetch(env.rpcUrl + path);
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

const CHUNK = 100;
async function both<T>(calls: Array<{ method: string; params: unknown[] }>): Promise<Array<[T, T]>> {
  const out: Array<[T, T]> = [];
  for (let i = 0; i < calls.length; i += CHUNK) {
    const chunk = calls.slice(i, i + CHUNK);
    const [a, b] = await Promise.all([adapter.batch<T>(chunk), btcd.batch<T>(chunk)]);
    a.forEach((x, j) => out.push([x, b[j]]));
  }
  return out;
}

describe('chain store', () => {
  test('every block, header, hash and transaction of the chain is byte-equal to btcd', async () => {
    const tip = await btcd.call<number>('getblockcount');
    expect(tip).toBeGreaterThanOrEqual(env.tip);
    const heights = Array.from({ length: tip + 1 }, (_, h) => h);
    const hashes = await both<string>(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    for (const [a, b] of hashes) expect(a).toBe(b);
    const blockHashes = hashes.map(([, b]) => b);

    const blocks = await both<string>(blockHashes.map((h) => ({ method: 'getblock', params: [h, 0] })));
    const headers = await both<string>(blockHashes.map((h) => ({ method: 'getblockheader', params: [h, false] })));
    const txids: string[] = [];
    const txBytes = new Map<string, Buffer>();
    for (let h = 0; h <= tip; h++) {
      const [a, b] = blocks[h];
      expect(a).toBe(b);
      expect(headers[h][0]).toBe(headers[h][1]);
      expect(headers[h][1]).toBe(b.slice(0, 160));
      const raw = Buffer.from(b, 'hex');
      for (const s of transactionSpans(raw)) {
        txids.push(s.txid);
        txBytes.set(s.txid, raw.subarray(s.start, s.end));
      }
    }
    expect(txids.length).toBeGreaterThan(tip); // the generator's payments, not only coinbases

    const txs = await both<string>(txids.map((t) => ({ method: 'getrawtransaction', params: [t, 0] })));
    txs.forEach(([a, b], i) => {
      expect(a).toBe(b);
      // btcd's own transaction bytes are the slice of its block the store serves.
      expect(b).toBe(txBytes.get(txids[i])!.toString('hex'));
    });
    // Core's boolean spelling (btcd only takes an int).
    const bools = await adapter.batch<string>(txids.slice(0, 50).map((t) => ({ method: 'getrawtransaction', params: [t, false] })));
    bools.forEach((a, i) => expect(a).toBe(txs[i][1]));
    const verbose = await both<{ hex: string }>(txids.slice(0, 50).map((t) => ({ method: 'getrawtransaction', params: [t, 1] })));
    for (const [a, b] of verbose) expect(a).toEqual(b);

    // Core's REST, as bindex reads it: blocks, hashes by height, header runs, and each transaction
    // as a byte range of its block.
    for (let h = 0; h <= tip; h++) {
      const hash = blockHashes[h];
      expect((await rest(`/rest/block/${hash}.bin`)).toString('hex')).toBe(blocks[h][1]);
      expect((await rest(`/rest/blockhashbyheight/${h}.hex`)).toString()).toBe(`${hash}\n`);
    }
    for (let h = 0; h <= tip; h += 37) {
      const count = Math.min(50, tip - h + 1);
      const expected = headers.slice(h, h + count).map(([, b]) => b).join('');
      expect((await rest(`/rest/headers/${blockHashes[h]}.hex?count=50`)).toString()).toBe(`${expected}\n`);
    }
    const busiest = blocks.reduce((best, [, b], h) => (b.length > blocks[best][1].length ? h : best), 0);
    const raw = Buffer.from(blocks[busiest][1], 'hex');
    for (const s of transactionSpans(raw)) {
      const part = await rest(`/rest/blockpart/${blockHashes[busiest]}.bin?offset=${s.start}&size=${s.end - s.start}`);
      expect(part.toString('hex')).toBe(txs[txids.indexOf(s.txid)][1]);
    }
  });

  test('what the store does not hold comes from btcd: mempool transactions, verbose forms, unknown hashes', async () => {
    const pool = await btcd.call<string[]>('getrawmempool', [false]);
    expect(pool.length).toBeGreaterThan(0); // the generator leaves some in the mempool
    for (const [a, b] of await both<string>(pool.map((t) => ({ method: 'getrawtransaction', params: [t, 0] })))) expect(a).toBe(b);

    const tipHash = await btcd.call<string>('getbestblockhash');
    const [[a, b]] = await both<Record<string, unknown>>([{ method: 'getblockheader', params: [tipHash, true] }]);
    expect(a).toEqual(b);
    const unknown = '00'.repeat(32);
    await expect(adapter.call('getblock', [unknown, 0])).rejects.toThrow(/not found/i);
    await expect(adapter.call('getrawtransaction', [unknown, 0])).rejects.toThrow();
    await expect(adapter.call('getblockhash', [(await btcd.call<number>('getblockcount')) + 1])).rejects.toThrow();
    expect((await fetch(`${env.rpcUrl}/rest/block/${unknown}.bin`)).status).toBe(404);
  });
});
