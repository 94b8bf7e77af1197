/**
 * The Core-dialect adapter against the real btcd behind it (the lab from globalSetup): Core-shaped
 * answers where btcd's differ, REST bodies byte-equal to btcd's blocks, prevouts equal to the real
 * funding outputs, and Core's HTTP behaviour (401, 404, JSON-RPC 1.0 vs 2.0 replies).
 */
import fs from 'node:fs';
import net from 'node:net';
import { labEnv } from './lab/env';
import { NodeRpc } from '../src/node/rpc';
import { DIALECT } from '../src/lab/adapter/dialect';
import { OWN_METHODS, ownAnswerList } from '../src/lab/adapter/own-answers';

const env = labEnv();
let rpc: NodeRpc;

interface VerboseTx {
  txid: string;
  hex: string;
  vsize: number;
  vin: Array<{ txid?: string; vout?: number; coinbase?: string }>;
  vout: Array<{ value: number; n: number; scriptPubKey: { hex: string } }>;
}

beforeAll(() => {
  rpc = new NodeRpc({ url: env.rpcUrl, cookieFile: env.rpcCookieFile });
});
afterAll(() => rpc.close());

const sats = (btc: number) => Math.round(btc * 1e8);
const authHeader = () => 'Basic ' + Buffer.from(fs.readFileSync(env.rpcCookieFile, 'utf8').trim()).toString('base64');

async function rest(path: string): Promise<{ status: number; body: Buffer; type: string | null }> {
  const res = await fetch(env.rpcUrl + path);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), type: res.headers.get('content-type') };
}

async function post(body: unknown, auth: string | null = authHeader()): Promise<{ status: number; json: unknown }> {
  const res = await fetch(env.rpcUrl + '/', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : null };
}

/** The block among the last 40 with the most transactions: the generator's spends land there. */
async function busyBlock(): Promise<{ hash: string; height: number; txs: VerboseTx[] }> {
  const tip = await rpc.call<number>('getblockcount');
  const hashes = await rpc.batch<string>(Array.from({ length: 40 }, (_, i) => ({ method: 'getblockhash', params: [tip - i] })));
  const blocks = await rpc.batch<{ hash: string; height: number; tx: string[] }>(hashes.map((h) => ({ method: 'getblock', params: [h, 1] })));
  const best = blocks.reduce((a, b) => (b.tx.length > a.tx.length ? b : a));
  const full = await rpc.call<{ tx: VerboseTx[] }>('getblock', [best.hash, 2]);
  return { hash: best.hash, height: best.height, txs: full.tx };
}

/** Decodes a /rest/spenttxouts .bin body: CompactSize counts and (int64 value, script) outputs. */
function parseSpent(b: Buffer): Array<Array<{ value: number; script: string }>> {
  let at = 0;
  const size = (): number => {
    const first = b[at++];
    const width = first < 0xfd ? 0 : first === 0xfd ? 2 : first === 0xfe ? 4 : 8;
    const v = width === 0 ? first : Number(b.readUIntLE(at, Math.min(width, 6)));
    at += width;
    return v;
  };
  const txs = [];
  for (let n = size(), i = 0; i < n; i++) {
    const outs = [];
    for (let m = size(), j = 0; j < m; j++) {
      const value = Number(b.readBigInt64LE(at));
      at += 8;
      const len = size();
      outs.push({ value, script: b.subarray(at, at + len).toString('hex') });
      at += len;
    }
    txs.push(outs);
  }
  expect(at).toBe(b.length);
  return txs;
}

describe('own answers', () => {
  test('every own RPC handler is on the documented list, and none is also a translation', () => {
    const listed = new Set(ownAnswerList().map((a) => a.name));
    for (const [method, own] of Object.entries(OWN_METHODS)) {
      expect(own.name).toBe(method);
      expect(listed.has(method)).toBe(true);
      expect(own.reason.length).toBeGreaterThan(10);
      expect(DIALECT[method]).toBeUndefined();
    }
  });

  test('getnetworkinfo has Core 31 version and btcd relay fee', async () => {
    const info = await rpc.call<Record<string, unknown>>('getnetworkinfo');
    const btcd = await rpc.call<{ relayfee: number; protocolversion: number }>('getinfo');
    expect(info.version).toBeGreaterThanOrEqual(310000);
    expect(info.relayfee).toBe(btcd.relayfee);
    expect(info.protocolversion).toBe(btcd.protocolversion);
    // Core's form: Fulcrum takes a node whose subversion does not start /Satoshi: for Bitcoin Cash.
    expect(info.subversion).toMatch(/^\/Satoshi:31\.0\.0\(btcd \d+\.\d+\.\d+; [^)]*\)\/$/);
    expect(typeof info.connections).toBe('number');
  });

  test('getindexinfo reports txindex and txospenderindex synced at the tip', async () => {
    const tip = await rpc.call<number>('getblockcount');
    const info = await rpc.call<Record<string, { synced: boolean; best_block_height: number }>>('getindexinfo');
    expect(info.txindex).toEqual({ synced: true, best_block_height: tip });
    expect(info.txospenderindex).toEqual({ synced: true, best_block_height: tip });
    expect(await rpc.call('getindexinfo', ['txindex'])).toEqual({ txindex: info.txindex });
    expect(await rpc.call('getindexinfo', ['nosuch'])).toEqual({});
  });

  test('getblockchaininfo has initialblockdownload (false: the tip was just mined)', async () => {
    const info = await rpc.call<Record<string, unknown>>('getblockchaininfo');
    expect(info.initialblockdownload).toBe(false);
    expect(info.chain).toBe('regtest');
  });

  test('getmempoolinfo carries the fee fields', async () => {
    const info = await rpc.call<Record<string, number | boolean>>('getmempoolinfo');
    const relay = (await rpc.call<{ relayfee: number }>('getinfo')).relayfee;
    expect(info).toMatchObject({ loaded: true, mempoolminfee: relay, minrelaytxfee: relay, incrementalrelayfee: relay });
    const pool = await rpc.call<Record<string, { fees: { base: number } }>>('getrawmempool', [true]);
    const total = Object.values(pool).reduce((n, e) => n + sats(e.fees.base), 0);
    expect(sats(info.total_fee as number)).toBe(total);
    expect(info.size).toBe(Object.keys(pool).length);
  });

  test('estimatesmartfee answers in Core shape', async () => {
    const r = await rpc.call<{ feerate?: number; errors?: string[]; blocks: number }>('estimatesmartfee', [6]);
    if (r.feerate !== undefined) expect(r.feerate).toBeGreaterThan(0);
    else expect(r.errors).toEqual(['Insufficient data or no feerate found']);
    await expect(rpc.call('estimatesmartfee', [0])).rejects.toThrow(/conf_target/);
  });

  test('getmempoolentry: vsize and fee match the transaction and its real inputs', async () => {
    const txids = await rpc.call<string[]>('getrawmempool');
    expect(txids.length).toBeGreaterThan(0);
    for (const txid of txids) {
      const entry = await rpc.call<{ vsize: number; wtxid: string; fees: { base: number }; depends: string[] }>('getmempoolentry', [txid]);
      const tx = await rpc.call<VerboseTx & { hash: string }>('getrawtransaction', [txid, 1]);
      let inSum = 0;
      for (const vin of tx.vin) {
        const prev = await rpc.call<VerboseTx>('getrawtransaction', [vin.txid, 1]);
        inSum += sats(prev.vout[vin.vout!].value);
      }
      const outSum = tx.vout.reduce((n, o) => n + sats(o.value), 0);
      expect(entry.vsize).toBe(tx.vsize);
      expect(entry.wtxid).toBe(tx.hash);
      expect(sats(entry.fees.base)).toBe(inSum - outSum);
    }
    await expect(rpc.call('getmempoolentry', ['00'.repeat(32)])).rejects.toThrow(/not in mempool/);
  });

  test('gettxspendingprevout finds confirmed spends (txospenderindex) and unspent outputs', async () => {
    const { hash, txs } = await busyBlock();
    const spender = txs.find((t) => t.vin[0].coinbase === undefined)!;
    const spent = { txid: spender.vin[0].txid!, vout: spender.vin[0].vout! };
    const [confirmed] = await rpc.call<Array<Record<string, unknown>>>('gettxspendingprevout', [[spent]]);
    expect(confirmed).toEqual({ ...spent, spendingtxid: spender.txid, blockhash: hash });
    const [memOnly] = await rpc.call<Array<Record<string, unknown>>>('gettxspendingprevout', [[spent], { mempool_only: true }]);
    expect(memOnly).toEqual(spent);
    // The tip's coinbase output is unspent (not mature).
    const tipBlock = await rpc.call<{ tx: string[] }>('getblock', [await rpc.call('getbestblockhash'), 1]);
    const [unspent] = await rpc.call<Array<Record<string, unknown>>>('gettxspendingprevout', [[{ txid: tipBlock.tx[0], vout: 0 }]]);
    expect(unspent).toEqual({ txid: tipBlock.tx[0], vout: 0 });
  });
});

describe('translations', () => {
  test('getblock verbosity 2 lists transactions under `tx`, booleans work', async () => {
    const hash = await rpc.call<string>('getbestblockhash');
    const v2 = await rpc.call<Record<string, unknown>>('getblock', [hash, 2]);
    expect(v2.rawtx).toBeUndefined();
    const txs = v2.tx as VerboseTx[];
    expect(txs.length).toBeGreaterThan(0);
    expect(typeof txs[0].txid).toBe('string');
    const v1 = await rpc.call<{ tx: string[] }>('getblock', [hash, true]);
    expect(v1.tx).toEqual(txs.map((t) => t.txid));
    expect(await rpc.call('getblock', [hash, false])).toBe(await rpc.call('getblock', [hash, 0]));
  });

  test('getblock verbosity 3 adds each input prevout and the fee', async () => {
    const { hash, txs } = await busyBlock();
    const v3 = await rpc.call<{ tx: Array<VerboseTx & { fee?: number; vin: Array<{ prevout?: { value: number; height: number; scriptPubKey: { hex: string } } }> }> }>('getblock', [hash, 3]);
    expect(v3.tx.map((t) => t.txid)).toEqual(txs.map((t) => t.txid));
    for (const t of v3.tx.slice(1, 6)) {
      let inSum = 0;
      for (const vin of t.vin) {
        const prev = await rpc.call<VerboseTx>('getrawtransaction', [(vin as { txid: string }).txid, 1]);
        const out = prev.vout[(vin as { vout: number }).vout];
        expect(vin.prevout!.scriptPubKey.hex).toBe(out.scriptPubKey.hex);
        expect(sats(vin.prevout!.value)).toBe(sats(out.value));
        inSum += sats(out.value);
      }
      expect(sats(t.fee!)).toBe(inSum - t.vout.reduce((n, o) => n + sats(o.value), 0));
    }
  });

  test('getrawtransaction takes boolean verbose and checks a given blockhash', async () => {
    const { hash, txs } = await busyBlock();
    const txid = txs[1].txid;
    const verbose = await rpc.call<VerboseTx & { blockhash: string }>('getrawtransaction', [txid, true]);
    expect(verbose.blockhash).toBe(hash);
    expect(await rpc.call('getrawtransaction', [txid, false, hash])).toBe(verbose.hex);
    const inBlock = await rpc.call<Record<string, unknown>>('getrawtransaction', [txid, 1, hash]);
    expect(inBlock.in_active_chain).toBe(true);
    const other = await rpc.call<string>('getblockhash', [1]);
    await expect(rpc.call('getrawtransaction', [txid, 1, other])).rejects.toThrow(/No such transaction found in the provided block/);
  });
});

describe('REST for electrs (bindex)', () => {
  test('blockhashbyheight: .bin is the reversed hash, .hex and .json display it', async () => {
    const hash = await rpc.call<string>('getblockhash', [5]);
    const bin = await rest('/rest/blockhashbyheight/5.bin');
    expect(bin.status).toBe(200);
    expect(bin.type).toBe('application/octet-stream');
    expect(Buffer.from(bin.body).reverse().toString('hex')).toBe(hash);
    expect((await rest('/rest/blockhashbyheight/5.hex')).body.toString()).toBe(hash + '\n');
    expect(JSON.parse((await rest('/rest/blockhashbyheight/5.json')).body.toString())).toEqual({ blockhash: hash });
    expect((await rest('/rest/blockhashbyheight/99999999.bin')).status).toBe(404);
    expect((await rest('/rest/blockhashbyheight/-1.bin')).status).toBe(400);
  });

  test('headers: consecutive raw headers from btcd, both path forms, empty for an unknown hash', async () => {
    const tip = await rpc.call<number>('getblockcount');
    const from = tip - 3;
    const hashes = await rpc.batch<string>([0, 1, 2, 3].map((i) => ({ method: 'getblockhash', params: [from + i] })));
    const raw = await rpc.batch<string>(hashes.map((h) => ({ method: 'getblockheader', params: [h, false] })));
    const old = await rest(`/rest/headers/10/${hashes[0]}.bin`);
    expect(old.body.toString('hex')).toBe(raw.join('')); // only 4 exist up to the tip
    const newer = await rest(`/rest/headers/${hashes[0]}.bin?count=2`);
    expect(newer.body.toString('hex')).toBe(raw.slice(0, 2).join(''));
    expect((await rest(`/rest/headers/${hashes[1]}.hex?count=1`)).body.toString()).toBe(raw[1] + '\n');
    const unknown = await rest(`/rest/headers/5/${'11'.repeat(32)}.bin`);
    expect(unknown.status).toBe(200);
    expect(unknown.body.length).toBe(0);
    expect((await rest(`/rest/headers/0/${hashes[0]}.bin`)).status).toBe(400);
  });

  test('block and blockpart: btcd raw block bytes', async () => {
    const { hash } = await busyBlock();
    const hex = await rpc.call<string>('getblock', [hash, 0]);
    const block = await rest(`/rest/block/${hash}.bin`);
    expect(block.status).toBe(200);
    expect(block.body.toString('hex')).toBe(hex);
    expect((await rest(`/rest/block/${hash}.hex`)).body.toString()).toBe(hex + '\n');
    const part = await rest(`/rest/blockpart/${hash}.bin?offset=80&size=100`);
    expect(part.body.toString('hex')).toBe(hex.slice(160, 160 + 200));
    const whole = await rest(`/rest/blockpart/${hash}.bin?offset=0&size=${hex.length / 2}`);
    expect(whole.body.toString('hex')).toBe(hex);
    expect((await rest(`/rest/blockpart/${hash}.bin?offset=0&size=${hex.length / 2 + 1}`)).status).toBe(400);
    expect((await rest(`/rest/block/${'22'.repeat(32)}.bin`)).status).toBe(404);
    expect((await rest('/rest/block/nothex.bin')).status).toBe(400);
  });

  test('spenttxouts: one list per transaction, equal to the real funding outputs', async () => {
    const { hash, txs } = await busyBlock();
    const res = await rest(`/rest/spenttxouts/${hash}.bin`);
    expect(res.status).toBe(200);
    const spent = parseSpent(res.body);
    expect(spent.length).toBe(txs.length);
    expect(spent[0]).toEqual([]); // the coinbase
    let inputs = 0;
    for (const [i, tx] of txs.entries()) {
      if (i === 0) continue;
      expect(spent[i].length).toBe(tx.vin.length);
      for (const [j, vin] of tx.vin.entries()) {
        const prev = await rpc.call<VerboseTx>('getrawtransaction', [vin.txid, 1]);
        const out = prev.vout[vin.vout!];
        expect(spent[i][j]).toEqual({ value: sats(out.value), script: out.scriptPubKey.hex });
        inputs++;
      }
    }
    expect(inputs).toBeGreaterThan(0);
    const genesis = await rpc.call<string>('getblockhash', [0]);
    expect((await rest(`/rest/spenttxouts/${genesis}.hex`)).body.toString()).toBe('0100\n');
  });

  test('unknown paths and formats are 404', async () => {
    expect((await rest('/rest/nosuch/thing.bin')).status).toBe(404);
    expect((await rest('/rest/chaininfo.json')).status).toBe(404);
    const hash = await rpc.call<string>('getbestblockhash');
    expect((await rest(`/rest/block/${hash}.xml`)).status).toBe(404);
  });
});

describe('JSON-RPC over HTTP like bitcoind', () => {
  test('401 without or with wrong credentials', async () => {
    expect((await post({ method: 'getblockcount', id: 1 }, null)).status).toBe(401);
    const wrong = 'Basic ' + Buffer.from('lab:wrong').toString('base64');
    expect((await post({ method: 'getblockcount', id: 1 }, wrong)).status).toBe(401);
  });

  test('legacy requests get result+error, 2.0 requests strict 2.0 replies, batches both', async () => {
    const legacy = await post({ method: 'getblockcount', id: 7 });
    expect(legacy.status).toBe(200);
    expect(legacy.json).toEqual({ result: expect.any(Number), error: null, id: 7 });
    const v2 = await post({ jsonrpc: '2.0', method: 'getblockcount', id: 'a' });
    expect(v2.json).toEqual({ jsonrpc: '2.0', result: expect.any(Number), id: 'a' });
    const missing = await post({ method: 'nosuchmethod', id: 1 });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ result: null, error: { code: -32601, message: expect.any(String) }, id: 1 });
    const batch = await post([
      { method: 'getblockcount', id: 1 },
      { jsonrpc: '2.0', method: 'getnetworkinfo', id: 2 },
      { jsonrpc: '2.0', method: 'getblockcount' }, // a notification: no reply
    ]);
    expect(batch.status).toBe(200);
    expect((batch.json as unknown[]).length).toBe(2);
  });
});

/**
 * Esplora's electrs as its daemon.rs writes and reads (one persistent socket, bare-LF request lines,
 * no Host header, batches whose entries share one id, an empty batch when it has nothing to ask; it
 * reads `Content-Length` by exact name and the body as one line of Content-Length − 1 bytes).
 */
describe('JSON-RPC for Esplora (its minimal HTTP)', () => {
  function esploraExchange(bodies: string[]): Promise<Array<{ status: string; headers: Record<string, string>; body: string }>> {
    const { hostname, port } = new URL(env.rpcUrl);
    const auth = authHeader();
    return new Promise((resolve, reject) => {
      const sock = net.connect(Number(port), hostname);
      const replies: Array<{ status: string; headers: Record<string, string>; body: string }> = [];
      let buf = '';
      const next = () => {
        if (replies.length === bodies.length) {
          sock.end();
          resolve(replies);
          return;
        }
        const b = bodies[replies.length];
        sock.write(`POST / HTTP/1.1\nAuthorization: ${auth}\nContent-Length: ${Buffer.byteLength(b)}\n\n${b}`);
      };
      sock.on('connect', next);
      sock.on('error', reject);
      sock.on('data', (d) => {
        buf += d.toString('utf8');
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const [status, ...lines] = buf.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(': ')), l.slice(l.indexOf(': ') + 2)]));
        const length = Number(headers['Content-Length']);
        if (buf.length < end + 4 + length) return;
        replies.push({ status, headers, body: buf.slice(end + 4, end + 4 + length) });
        buf = buf.slice(end + 4 + length);
        next();
      });
    });
  }

  test('bare-LF requests without Host on one socket; shared-id batches; empty batch; one-line bodies', async () => {
    const hash = await rpc.call<string>('getbestblockhash');
    const replies = await esploraExchange([
      JSON.stringify([{ method: 'getblockchaininfo', params: [], id: 1 }]),
      JSON.stringify([]),
      JSON.stringify([
        { method: 'getblock', params: [hash, false], id: 3 },
        { method: 'getblockhash', params: [0], id: 3 },
      ]),
    ]);
    for (const r of replies) {
      expect(r.status).toBe('HTTP/1.1 200 OK');
      // Esplora reads one line and checks it against Content-Length − 1.
      expect(r.body.endsWith('\n')).toBe(true);
      expect(r.body.slice(0, -1)).not.toContain('\n');
    }
    const [info] = JSON.parse(replies[0].body) as Array<{ id: number; result: { verificationprogress: number; initialblockdownload: boolean; blocks: number } }>;
    expect(info.id).toBe(1);
    expect(info.result.verificationprogress).toBe(1);
    expect(info.result.initialblockdownload).toBe(false);
    expect(JSON.parse(replies[1].body)).toEqual([]);
    const batch = JSON.parse(replies[2].body) as Array<{ id: number; result: string }>;
    expect(batch.map((b) => b.id)).toEqual([3, 3]);
    expect(batch[0].result).toBe(await rpc.call<string>('getblock', [hash, 0]));
    expect(batch[1].result).toBe(await rpc.call<string>('getblockhash', [0]));
  });
});
