/** The node transport: btcd's dialect normalised once, errors as values, failures by kind. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeTransport, normaliseResult, TransportError } from '../../../src/node/transport';
import { NodeRpc, NodeRpcError } from '../../../src/node/rpc';
import { BtcdClient, BtcdUnavailable } from '../../../src/lab/adapter/btcd-client';
import { UserError } from '../../../src/core/user-error';

describe('normaliseResult', () => {
  test("btcd's getblock 2 `rawtx` becomes `tx`, in place of it", () => {
    const btcd = { hash: 'h', rawtx: [{ txid: 'a' }], nTx: 1, height: 5 };
    const out = normaliseResult('getblock', btcd) as Record<string, unknown>;
    expect(out).toEqual({ hash: 'h', tx: [{ txid: 'a' }], nTx: 1, height: 5 });
    expect(Object.keys(out)).toEqual(['hash', 'tx', 'nTx', 'height']);
  });

  test('Core shapes, other methods and other values pass unchanged', () => {
    const core = { hash: 'h', tx: [{ txid: 'a' }] };
    expect(normaliseResult('getblock', core)).toBe(core);
    expect(normaliseResult('getblock', 'deadbeef')).toBe('deadbeef');
    expect(normaliseResult('getblock', null)).toBeNull();
    const other = { rawtx: 1 };
    expect(normaliseResult('getrawtransaction', other)).toBe(other);
  });
});

/** A node that answers like btcd: getblock with `rawtx`, errors as 1.0 replies, 401 without auth. */
function fakeNode(handle?: (body: unknown) => { status?: number; text: string }): Promise<{ url: string; seen: unknown[]; close: () => Promise<void> }> {
  const seen: unknown[] = [];
  const answer = (c: { id: number; method: string; jsonrpc?: string }) =>
    c.method === 'getblock'
      ? { result: { hash: 'h', rawtx: [{ txid: 'a' }] }, error: null, id: c.id }
      : c.method === 'getblockcount'
        ? { result: 7, error: null, id: c.id }
        : { result: null, error: { code: -32601, message: 'Method not found' }, id: c.id };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.headers.authorization !== 'Basic ' + Buffer.from('u:p').toString('base64')) {
        res.writeHead(401).end();
        return;
      }
      const parsed = JSON.parse(body);
      seen.push(parsed);
      const custom = handle?.(parsed);
      if (custom) {
        res.writeHead(custom.status ?? 200).end(custom.text);
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as AddressInfo).port;
      resolve({ url: `http://127.0.0.1:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

test('every client sees `tx`, and credentials never reach describe()', async () => {
  const node = await fakeNode();
  const transport = new NodeTransport({ url: node.url.replace('http://', 'http://u:p@') });
  const rpc = new NodeRpc({ url: node.url, user: 'u', password: 'p' });
  const btcd = new BtcdClient('127.0.0.1', Number(new URL(node.url).port), { user: 'u', password: 'p' });
  try {
    expect(transport.describe()).toBe(node.url);
    expect(await transport.call('getblock', ['h', 2])).toEqual({ result: { hash: 'h', tx: [{ txid: 'a' }] }, error: null });
    expect(await rpc.batch([{ method: 'getblock', params: ['h', 2] }, { method: 'getblockcount' }])).toEqual([{ hash: 'h', tx: [{ txid: 'a' }] }, 7]);
    expect(await btcd.get('getblock', ['h', 2])).toEqual({ hash: 'h', tx: [{ txid: 'a' }] });
    // btcd drops a request without "jsonrpc"; the adapter's client asks for 1.0 replies.
    expect(node.seen.map((b) => (Array.isArray(b) ? b[0].jsonrpc : (b as { jsonrpc: string }).jsonrpc))).toEqual(['2.0', '2.0', '1.0']);
    expect(await btcd.call('nosuch')).toEqual({ result: null, error: { code: -32601, message: 'Method not found' } });
    await expect(rpc.call('nosuch')).rejects.toThrow(NodeRpcError);
  } finally {
    transport.close();
    rpc.close();
    btcd.close();
    await node.close();
  }
});

test('failed exchanges: each client words them its own way', async () => {
  const node = await fakeNode((b) => ((b as { method: string }).method === 'empty' ? { text: '' } : (b as { method: string }).method === 'html' ? { status: 500, text: '<html>' } : { text: '[]' }));
  const rpc = new NodeRpc({ url: node.url, user: 'u', password: 'p' });
  const wrong = new NodeRpc({ url: node.url, user: 'u', password: 'wrong' });
  const btcd = new BtcdClient('127.0.0.1', Number(new URL(node.url).port), { user: 'u', password: 'p' });
  try {
    await expect(rpc.call('empty')).rejects.toThrow(NodeRpcError);
    await expect(rpc.call('html')).rejects.toThrow(/not JSON \(HTTP 500\)/);
    await expect(rpc.call('array')).rejects.toThrow(NodeRpcError);
    await expect(wrong.call('getblockcount')).rejects.toThrow(UserError);
    await expect(wrong.call('getblockcount')).rejects.toThrow(/wrong RPC credentials \(HTTP 401\)/);
    await expect(btcd.call('empty')).rejects.toThrow(BtcdUnavailable);
  } finally {
    rpc.close();
    wrong.close();
    btcd.close();
    await node.close();
  }
  const gone = new NodeTransport({ url: node.url });
  await expect(gone.call('getblockcount')).rejects.toBeInstanceOf(TransportError);
  await expect(gone.call('getblockcount')).rejects.toMatchObject({ kind: 'unreachable' });
  await expect(new NodeRpc({ url: node.url }).call('getblockcount')).rejects.toThrow(/unreachable \(ECONNREFUSED\)/);
  gone.close();
});

test('bad URLs and cookie files are user errors naming the option', () => {
  expect(() => new NodeTransport({ url: 'notaurl' })).toThrow(/--rpc: not a URL/);
  expect(() => new NodeTransport({ url: 'ftp://h' })).toThrow(/--rpc: expected an http/);
  expect(() => new NodeTransport({ url: 'http://h', cookieFile: '/nonexistent/.cookie' })).toThrow(/--rpc-cookie: cannot read \/nonexistent\/.cookie/);
});
