/**
 * The lab dataset is only useful if it is true. These tests hold the generator's manifest against
 * (1) the dataset file it describes, (2) an independent walk of the node's chain, and (3) what each
 * lab Electrum server answers for every dataset address: get_balance, get_history, listunspent.
 */
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { describeBuilt, labEnv } from './lab/env';
import { EsploraRestClient } from '../src/esplora/rest-client';
import { ElectrumClient } from '../src/electrum/client';
import { NodeRpc } from '../src/node/rpc';
import { parseDatasetLine } from '../src/dataset/line';
import { ChainClient, diffTruths, historyDigest, readManifest, utxoKey, walkChain } from '../src/lab/generator';
import type { LabManifest, ManifestAddress, ScriptTruth } from '../src/lab/generator';
import { LAB_SERVERS, LAB_SERVER_NAMES, labServer, type LabServerName } from '../src/lab/servers/registry';
import { PROFILES, type ProfileName } from '../src/servers/profiles';

const env = labEnv();
const manifest: LabManifest = readManifest(env.manifestPath);
// Servers poll the node's mempool on their own schedule (ElectrumX every few seconds, electrs each
// main-loop pass): give them this long to show the generator's mempool transactions.
const SYNC_TIMEOUT_MS = 60_000;

interface Balance {
  confirmed: number;
  unconfirmed: number;
}
interface HistoryEntry {
  tx_hash: string;
  height: number;
}
interface Unspent {
  tx_hash: string;
  tx_pos: number;
  value: number;
  height: number;
}

describe('lab dataset file', () => {
  const text = fs.readFileSync(env.datasetPath, 'utf8');

  test('has the hash and line count its manifest records', () => {
    expect(createHash('sha256').update(text).digest('hex')).toBe(manifest.dataset.sha256);
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n').length - 1).toBe(manifest.dataset.lines);
  });

  test('lines are the manifest addresses, sorted by txCount', () => {
    const lines = text.trimEnd().split('\n').map((l, i) => parseDatasetLine(l, `${env.datasetPath}:${i + 1}`));
    expect(lines.map((l) => l.scripthash)).toEqual(manifest.addresses.map((a) => a.scripthash));
    for (const [i, line] of lines.entries()) {
      const a = manifest.addresses[i];
      expect(line).toEqual({ address: a.address, scripthash: a.scripthash, type: a.type, txCount: a.txCount, utxoCount: a.utxoCount, balance: a.balance });
      if (i > 0) expect(line.txCount).toBeGreaterThanOrEqual(lines[i - 1].txCount);
    }
  });

  test('covers every address type at several sizes, with a history of at least 1000', () => {
    for (const type of ['p2pkh', 'p2sh-p2wpkh', 'p2wpkh', 'p2wsh', 'p2tr']) {
      const sizes = new Set(manifest.addresses.filter((a) => a.type === type).map((a) => a.txCount));
      expect(sizes.size).toBeGreaterThanOrEqual(manifest.generator.maxTxCount >= 1000 ? 5 : 2);
    }
    expect(manifest.chain.maxTxCount).toBe(manifest.generator.maxTxCount);
    if (manifest.generator.mempoolTxs > 0) {
      expect(manifest.addresses.some((a) => a.balance.unconfirmed > 0)).toBe(true);
      expect(manifest.addresses.some((a) => a.balance.unconfirmed < 0)).toBe(true);
    }
    expect(manifest.addresses.some((a) => a.utxoCount === 0 && a.txCount > 1)).toBe(true);
  });
});

describe('lab dataset against the node', () => {
  let rpc: NodeRpc;
  beforeAll(() => {
    rpc = new NodeRpc({ url: env.rpcUrl, cookieFile: env.rpcCookieFile });
  });
  afterAll(() => rpc.close());

  test('an independent walk of the chain gives the manifest, address by address', async () => {
    const walk = await walkChain(new ChainClient(rpc), manifest.addresses.map((a) => a.scripthash));
    expect({ tipHeight: walk.tipHeight, tipHash: walk.tipHash }).toEqual({ tipHeight: manifest.tipHeight, tipHash: manifest.tipHash });
    expect(walk.transactions).toBe(manifest.chain.transactions);
    const expected = new Map<string, ScriptTruth>(manifest.addresses.map((a) => [a.scripthash, a]));
    expect(diffTruths(expected, walk.truths)).toEqual([]);
  });
});

/** Each lab server over the Electrum protocol, and those with a REST API (Esplora, mempool's electrs) over it too. */
const SERVERS: Array<{ label: string; server: LabServerName; rest?: ProfileName }> = [
  ...LAB_SERVER_NAMES.map((server) => ({ label: server, server })),
  ...LAB_SERVERS.flatMap((s) => (s.rest ? [{ label: s.rest.profile, server: s.name, rest: s.rest.profile }] : [])),
];

for (const target of SERVERS) {
  const built = labServer(target.server).install.fromSource ? target.server : null;
  (built ? (t: string, f: () => void) => describeBuilt(built, t, f) : describe)(`${target.label} answers what the manifest expects`, () => groundTruth(target));
}

interface Asker {
  request<T>(method: string, params: unknown[]): Promise<T>;
  close(): void;
}

/** The REST client behind the same three questions (answers already in the Electrum protocol's shapes), paging as the profile says. */
function restAsker(url: string, profile: ProfileName): Asker {
  const u = new URL(url);
  const c = new EsploraRestClient({ host: u.hostname, port: Number(u.port), tls: false, timeoutMs: 30_000, maxSockets: 8, historyPaging: PROFILES[profile].restHistory });
  return {
    request: async <T>(method: string, params: unknown[]) => {
      if (method === 'blockchain.headers.subscribe') return { height: await c.tipHeight() } as T;
      return (await c.call(method, params)).result as T;
    },
    close: () => c.close(),
  };
}

function groundTruth({ server, rest }: (typeof SERVERS)[number]): void {
  let client: Asker;

  beforeAll(async () => {
    client = rest ? restAsker(env.rest[server]!.url, rest) : await ElectrumClient.connect(env.electrum[server]!);
    await waitForSync(client);
  });
  afterAll(() => client?.close());

  test('blockchain.scripthash.get_balance for every address', async () => {
    const answers = await forAll((a) => client.request<Balance>('blockchain.scripthash.get_balance', [a.scripthash]));
    const wrong = manifest.addresses.flatMap((a, i) =>
      answers[i].confirmed === a.balance.confirmed && answers[i].unconfirmed === a.balance.unconfirmed
        ? []
        : [`${a.address} (${a.type}, ${a.txCount} txs): ${JSON.stringify(answers[i])} != ${JSON.stringify(a.balance)}`],
    );
    expect(wrong).toEqual([]);
  });

  test('blockchain.scripthash.get_history for every address', async () => {
    const answers = await forAll((a) => client.request<HistoryEntry[]>('blockchain.scripthash.get_history', [a.scripthash]));
    const wrong = manifest.addresses.flatMap((a, i) => {
      const h = answers[i];
      const problems: string[] = [];
      if (h.length !== a.historyLength) problems.push(`length ${h.length} != ${a.historyLength}`);
      else if (historyDigest(h) !== a.historyDigest) problems.push('same length, different transactions or heights');
      // Protocol: confirmed entries in blockchain order, then mempool entries (height 0 or -1).
      const heights = h.map((e) => (e.height > 0 ? e.height : Number.MAX_SAFE_INTEGER));
      if (heights.some((v, j) => j > 0 && v < heights[j - 1])) problems.push('not in blockchain order');
      return problems.length ? [`${a.address} (${a.type}, ${a.txCount} txs): ${problems.join('; ')}`] : [];
    });
    expect(wrong).toEqual([]);
  });

  test('blockchain.scripthash.listunspent for every address', async () => {
    const answers = await forAll((a) => client.request<Unspent[]>('blockchain.scripthash.listunspent', [a.scripthash]));
    const wrong = manifest.addresses.flatMap((a, i) => {
      const got = answers[i].map((u) => utxoKey(u.tx_hash, u.tx_pos, u.value, u.height)).sort();
      if (got.join() === a.listunspent.join()) return [];
      const want = new Set(a.listunspent);
      const have = new Set(got);
      const extra = got.filter((k) => !want.has(k)).slice(0, 3);
      const missing = a.listunspent.filter((k) => !have.has(k)).slice(0, 3);
      return [`${a.address} (${a.type}): ${got.length} entries, want ${a.listunspent.length}; extra ${extra.join(' ')}; missing ${missing.join(' ')}`];
    });
    expect(wrong).toEqual([]);
  });

  function forAll<T>(ask: (a: ManifestAddress) => Promise<T>): Promise<T[]> {
    return Promise.all(manifest.addresses.map(ask));
  }
}

/** Until the server is at the manifest's tip and shows every mempool transaction (or time runs out). */
async function waitForSync(client: Asker): Promise<void> {
  const deadline = Date.now() + SYNC_TIMEOUT_MS;
  const withMempool = manifest.addresses.filter((a) => a.mempoolTxCount > 0);
  for (;;) {
    const tip = await client.request<{ height: number }>('blockchain.headers.subscribe', []);
    let synced = tip.height === manifest.tipHeight;
    if (synced) {
      const histories = await Promise.all(withMempool.map((a) => client.request<HistoryEntry[]>('blockchain.scripthash.get_history', [a.scripthash])));
      synced = histories.every((h, i) => h.length === withMempool[i].historyLength);
    }
    if (synced || Date.now() > deadline) return; // the tests then report what is still wrong
    await new Promise((r) => setTimeout(r, 500));
  }
}
