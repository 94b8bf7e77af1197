/**
 * The chain store kept current as blocks are mined: a block mined through the adapter is in the
 * store when the mining call returns. btcd is then stopped (SIGSTOP) and the adapter still serves
 * the new block, its hash and its coinbase — from the store, as btcd cannot answer — byte-equal to
 * what btcd says once it runs again (SIGCONT, whatever happens). Mines a block: runs last.
 */
import { labEnv } from './lab/env';
import { labMiner } from '../src/lab/lab';
import { labConfig, labPaths } from '../src/lab/config';
import { recordedPid } from '../src/lab/processes';
import { NodeRpc } from '../src/node/rpc';
import { transactionSpans } from '../src/lab/adapter/chain-store';

const env = labEnv();

test('a block mined through the adapter is served from the store at once, with btcd stopped', async () => {
  const { miner, recordChange } = await labMiner();
  const mined = await miner.mineOne();
  recordChange(1, 0);
  const btcdPid = recordedPid(labPaths(labConfig()), 'btcd');
  expect(btcdPid).not.toBeNull();
  // A short timeout: anything the adapter had to ask btcd for would fail, not hang.
  const adapter = new NodeRpc({ url: env.rpcUrl, cookieFile: env.rpcCookieFile, timeoutMs: 5_000 });
  let served: { rest: Buffer; raw: string; hash: string; coinbase: string };
  process.kill(btcdPid!, 'SIGSTOP');
  try {
    const rest = Buffer.from(await (await fetch(`${env.rpcUrl}/rest/block/${mined.hash}.bin`, { signal: AbortSignal.timeout(5_000) })).arrayBuffer());
    const raw = await adapter.call<string>('getblock', [mined.hash, 0]);
    const hash = await adapter.call<string>('getblockhash', [mined.height]);
    const coinbase = await adapter.call<string>('getrawtransaction', [transactionSpans(rest)[0].txid, 0]);
    served = { rest, raw, hash, coinbase };
  } finally {
    process.kill(btcdPid!, 'SIGCONT');
    adapter.close();
  }
  const btcd = new NodeRpc({ url: `http://127.0.0.1:${labConfig().ports.btcdRpc}`, cookieFile: env.rpcCookieFile });
  try {
    const raw = await btcd.call<string>('getblock', [mined.hash, 0]);
    expect(served.rest.toString('hex')).toBe(raw);
    expect(served.raw).toBe(raw);
    expect(served.hash).toBe(await btcd.call<string>('getblockhash', [mined.height]));
    expect(served.coinbase).toBe(await btcd.call<string>('getrawtransaction', [transactionSpans(served.rest)[0].txid, 0]));
  } finally {
    btcd.close();
  }
});
