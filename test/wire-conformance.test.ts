/**
 * The `bdk` workload held to the real BDK on the wire (issue #20): the same lab wallet synced from
 * scratch by PyPI's bdkpython (bdk_electrum 0.24, installed by scripts/install-lab.sh bdk) and by
 * the workload, each through our recording proxy in front of the same lab server. What each sent
 * must match: every request with its params (as a multiset), the framing (lines, not arrays), the
 * batches written at once (method and size) and the most requests in flight. No difference is
 * allowed. Both must also find what the wallets file expects. Before each batch of histories BDK
 * pauses to derive the batch's scripts; the workload must pause at least as long as it models that
 * (bdk.ts) before every one of them.
 */
import fs from 'node:fs';
import { labEnv } from './lab/env';
import { labConfig } from '../src/lab/config';
import { bdkSyncs } from '../src/lab/clients/bdk';
import { WireRecorder, wireProfile, type WireProfile } from '../src/lab/wire-recorder';
import { readWallets } from '../src/dataset/wallet-file';
import { syncWallet } from '../src/wallet/sync';
import { workloadNamed } from '../src/wallet/workloads';
import { BATCH_PAUSE_NS } from '../src/wallet/workloads/bdk';

const env = labEnv();
const BDK_PYTHON = labConfig().bin.bdkPython;
const wallets = readWallets(env.walletsPath).wallets;
const SIZES = [10, 100, 400];
const HISTORY = 'blockchain.scripthash.get_history';
/** The pause the workload makes before each batch of histories, in ms. */
const BATCH_PAUSE_MS = BATCH_PAUSE_NS / 1e6;

/** The lab servers this run has, each by its Electrum endpoint. */
const servers = Object.entries(env.electrum) as Array<[string, { host: string; port: number }]>;

function comparable(p: WireProfile) {
  return { requests: [...p.requests.entries()].sort(), framings: [...p.framings].sort(), batches: [...p.batches.entries()].sort(), maxInFlight: p.maxInFlight };
}

describe.each(servers)('bdk on %s: the workload sends what bdkpython sends', (name, endpoint) => {
  let recorder: WireRecorder;
  beforeAll(async () => {
    recorder = await WireRecorder.start(endpoint);
  });
  afterAll(() => recorder.close());

  test.each(SIZES)('the wallet of %i transactions', async (txs) => {
    const wallet = wallets.find((w) => w.expected.txCount === txs && w.descriptors)!;
    expect(wallet).toBeDefined();
    recorder.clear();
    const [found] = await bdkSyncs(`tcp://127.0.0.1:${recorder.port}`, wallet);
    expect(found).toMatchObject({ confirmed: wallet.expected.balance.confirmed, unconfirmed: wallet.expected.balance.unconfirmed, txs });
    const bdk = wireProfile(recorder.requests);
    expect(bdk.requests.size).toBeGreaterThan(txs); // it was recorded, not an empty comparison
    const bdkBatches = recorder.pausesBeforeMs(HISTORY).length;

    recorder.clear();
    const ours = await syncWallet(workloadNamed('bdk'), wallet, { connection: { host: '127.0.0.1', port: recorder.port, timeoutMs: 60_000 }, verify: true });
    expect({ status: ours.status, error: ours.error, mismatch: ours.mismatch }).toEqual({ status: 'ok', error: undefined, mismatch: [] });
    expect(comparable(wireProfile(recorder.requests))).toEqual(comparable(bdk));
    const ourPauses = recorder.pausesBeforeMs(HISTORY);
    expect(ourPauses).toHaveLength(bdkBatches);
    for (const ms of ourPauses) expect(ms).toBeGreaterThanOrEqual(BATCH_PAUSE_MS);
  }, 180_000);
});

test('the real client is installed where the test looks for it', () => {
  expect(fs.existsSync(BDK_PYTHON)).toBe(true);
});
