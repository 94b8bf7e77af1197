/**
 * The wallet workloads' parts that need no lab: descriptor checksums (BIP-380's own vector), the
 * wallets file, a wallet's balance worked out from raw transactions, the judging of block
 * notifications, synthetic wallets, and a session's in-flight cap and error samples against the
 * misbehaving server.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as bitcoin from 'bitcoinjs-lib';
import { descriptorChecksum, descriptorOf } from '../../../src/lab/generator/descriptor';
import { parseWalletLine, formatWalletLine, readWallets } from '../../../src/dataset/wallet-file';
import { Findings, figuresOf, mismatches } from '../../../src/wallet/findings';
import { judgeBlock, allHeard, type HeldConnection } from '../../../src/wallet/notifications';
import { syntheticWallets } from '../../../src/dataset/wallets';
import { WalletSession } from '../../../src/wallet/session';
import { syncWallet } from '../../../src/wallet/sync';
import { electrumWorkload } from '../../../src/wallet/workloads/electrum';
import { sparrowWorkload } from '../../../src/wallet/workloads/sparrow';
import { scriptHashOfScript } from '../../../src/electrum/scripthash';
import type { WalletLine } from '../../../src/core/wallet-line';
import type { DatasetLine } from '../../../src/core/dataset-line';
import { startMisbehavingServer } from '../../support/misbehaving-server';
import { fullSyncCalls } from '../../../src/core/wallet-scan';

const hex64 = (n: number) => n.toString(16).padStart(64, '0');

function wallet(receive: string[], change: string[] = [], partial: Partial<WalletLine['expected']> = {}): WalletLine {
  const base = { txCount: 0, txCountExact: true, balance: { confirmed: 0, unconfirmed: 0 }, usedScripts: { receive: 0, change: 0 }, ...partial };
  return {
    wallet: 'w',
    origin: 'synthetic',
    type: 'p2wpkh',
    gap: 0,
    chains: { receive: receive.map((scripthash) => ({ address: null, scripthash })), change: change.map((scripthash) => ({ address: null, scripthash })) },
    expected: { ...base, fullSync: fullSyncCalls(base.usedScripts, base.txCount, base.txCount) },
  };
}

/** A wallet of 30 receive and 30 change scripts, none used (wider than test/support's 20 + 10: a scan going past its window shows). */
const unusedWalletOf30And30 = () => wallet(Array.from({ length: 30 }, (_, i) => hex64(i + 1)), Array.from({ length: 30 }, (_, i) => hex64(i + 100)));

/** `workload`'s sync of `w` against a server of ours on loopback, its answers verified. */
const syncAt = (workload: Parameters<typeof syncWallet>[0], port: number, timeoutMs: number, w = unusedWalletOf30And30()) =>
  syncWallet(workload, w, { connection: { host: '127.0.0.1', port, timeoutMs }, verify: true });

describe('descriptors', () => {
  test("BIP-380's test vector", () => {
    expect(descriptorChecksum('raw(deadbeef)')).toBe('89f8spxm');
  });
  test('each type wraps its key as BIP-381/382/386 say, with a checksum of the body', () => {
    const d = descriptorOf('p2sh-p2wpkh', '[00000000/49h/1h/0h]tpubX/0/*');
    expect(d).toMatch(/^sh\(wpkh\(\[00000000\/49h\/1h\/0h\]tpubX\/0\/\*\)\)#[a-z0-9]{8}$/);
    expect(d.split('#')[1]).toBe(descriptorChecksum(d.split('#')[0]));
    expect(descriptorOf('p2tr', 'K').startsWith('tr(K)#')).toBe(true);
    expect(descriptorOf('p2wsh', 'K').startsWith('wsh(pk(K))#')).toBe(true);
  });
});

describe('wallets file', () => {
  const w = wallet([hex64(1), hex64(2)], [hex64(3)], { txCount: 2, usedScripts: { receive: 1, change: 0 } });
  test('a line written is read back the same', () => {
    expect(parseWalletLine(formatWalletLine(w), 'x:1')).toEqual(w);
  });
  test('errors name the file, line and field', () => {
    const bad = JSON.parse(formatWalletLine(w));
    bad.chains.receive[1].scripthash = 'zz';
    expect(() => parseWalletLine(JSON.stringify(bad), 'f.jsonl:7')).toThrow(/^f\.jsonl:7: "chains\.receive\[1\]\.scripthash"/);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-wallets-'));
    fs.writeFileSync(path.join(dir, 'w.jsonl'), `${formatWalletLine(w)}\n${formatWalletLine(w)}\n`);
    expect(() => readWallets(path.join(dir, 'w.jsonl'))).toThrow(/w\.jsonl:2: wallet "w" already on line 1/);
  });
  test("a wallet listing fewer scripts than a workload's scan asks about is refused for that workload, naming the line and the gap that would do", () => {
    // 5 used receive scripts, 20 unused after them on each chain: Electrum's 20 + 10 and Sparrow's
    // 20 + 20 fit, BDK's batches of 10 to a stop gap of 20 ask for 30 receive scripts.
    const used = { receive: 5, change: 0 };
    const w20 = { ...wallet(Array.from({ length: 25 }, (_, i) => hex64(i + 1)), Array.from({ length: 20 }, (_, i) => hex64(i + 100)), { usedScripts: used }), gap: 20 };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-wallets-'));
    const file = path.join(dir, 'w.jsonl');
    fs.writeFileSync(file, `\n${formatWalletLine(w20)}\n`);
    expect(readWallets(file, '--wallets', 'electrum').wallets).toHaveLength(1);
    expect(readWallets(file, '--wallets', 'sparrow').wallets).toHaveLength(1);
    expect(() => readWallets(file, '--wallets', 'bdk')).toThrow(
      `${file}:2: wallet "w" has gap 20, too small for a full sync by the bdk workload: it lists 25 receive scripts where it asks for 30 (5 used + 25); write the file again with dataset wallets --gap 25 or more`,
    );
    // Without a workload the file is only read.
    expect(readWallets(file).wallets).toHaveLength(1);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('a wallet figured out from its transactions', () => {
  const mine = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 1) }).output!;
  const theirs = bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 2) }).output!;
  const sh = scriptHashOfScript(mine);
  // A funding transaction paying us twice, then a spend of one output in the mempool.
  const fund = new bitcoin.Transaction();
  fund.addInput(Buffer.alloc(32, 9), 0);
  fund.addOutput(mine, 70_000n);
  fund.addOutput(mine, 30_000n);
  fund.addOutput(theirs, 5_000n);
  const spend = new bitcoin.Transaction();
  spend.addInput(Buffer.from(fund.getId(), 'hex').reverse(), 1);
  spend.addOutput(theirs, 29_000n);

  test("confirmed outputs count as confirmed; a mempool spend of one is negative unconfirmed (the protocol's get_balance)", () => {
    const f = new Findings();
    f.histories.set(sh, [
      { tx_hash: fund.getId(), height: 100 },
      { tx_hash: spend.getId(), height: 0 },
    ]);
    f.rawTxs.set(fund.getId(), fund.toHex());
    f.rawTxs.set(spend.getId(), spend.toHex());
    expect(figuresOf(f, new Set([sh]))).toEqual({ txCount: 2, balance: { confirmed: 100_000, unconfirmed: -30_000 } });
  });

  test('mismatches: exact counts must match; synthetic ones are an upper bound', () => {
    const found = { txCount: 2, balance: { confirmed: 100_000, unconfirmed: -30_000 } };
    expect(mismatches(wallet([sh], [], { txCount: 2, balance: found.balance }), found, 0)).toEqual([]);
    expect(mismatches(wallet([sh], [], { txCount: 3, balance: found.balance }), found, 0)).toEqual([expect.stringMatching(/transactions: found 2, expected 3/)]);
    expect(mismatches(wallet([sh], [], { txCount: 3, txCountExact: false, balance: found.balance }), found, 0)).toEqual([]);
    expect(mismatches(wallet([sh], [], { txCount: 2, balance: { confirmed: 1, unconfirmed: 0 } }), found, 1)).toHaveLength(2);
  });
});

describe('block notifications', () => {
  const asked = 1_000_000_000n;
  const header = (height: number, atNs: bigint) => ({ method: 'blockchain.headers.subscribe', params: [{ height, hex: '00' }], atNs });
  const status = (sh: string, s: string, atNs: bigint) => ({ method: 'blockchain.scripthash.subscribe', params: [sh, s], atNs });

  test('latency from the mining call; missing, duplicate and a changed status told apart', () => {
    const a: HeldConnection = { id: 1, subscribed: new Set(['s1']), heard: [header(7, asked + 5_000_000n), status('s1', 'x', asked + 6_000_000n), status('s1', 'y', asked + 7_000_000n)] };
    const b: HeldConnection = { id: 2, subscribed: new Set(['s1']), heard: [header(7, asked + 2_000_000n), header(7, asked + 3_000_000n)] };
    const c: HeldConnection = { id: 3, subscribed: new Set(), heard: [header(6, asked - 1n)] };
    expect(allHeard([a, b, c], 7, new Set(['s1']), asked)).toBe(false);
    const j = judgeBlock([a, b, c], 7, new Set(['s1']), asked);
    expect(j.headers).toEqual({ expected: 3, ok: 2, missing: 1, duplicate: 1 });
    expect(j.scripthash).toEqual({ expected: 2, ok: 1, missing: 1, duplicate: 0 });
    const okHeaders = j.rows.filter((r) => r.kind === 'headers' && r.status === 'ok').map((r) => Number(r.latencyNs) / 1e6);
    expect(okHeaders.sort()).toEqual([2, 5]);
    expect(a.heard).toHaveLength(0); // judged notifications are not carried to the next block
  });
});

describe('synthetic wallets', () => {
  const lines: DatasetLine[] = Array.from({ length: 200 }, (_, i) => ({
    address: null,
    scripthash: hex64(i + 1),
    type: i % 2 ? 'p2wpkh' : 'p2tr',
    txCount: 1 + (i % 13),
    utxoCount: 1,
    balance: { confirmed: 1000 + i, unconfirmed: 0 },
  }));
  const made = syntheticWallets(lines, { minTxs: 10, maxTxs: 60, gap: 25, seed: 's' });

  test('one script type per wallet, sizes in range, padding on both chains, balances summed', () => {
    expect(made.length).toBeGreaterThan(5);
    const byHash = new Map(lines.map((l) => [l.scripthash, l]));
    for (const w of made) {
      const used = w.chains.receive.slice(0, w.expected.usedScripts.receive).map((s) => byHash.get(s.scripthash)!);
      expect(new Set(used.map((l) => l.type))).toEqual(new Set([w.type]));
      expect(w.expected.txCount).toBe(used.reduce((n, l) => n + l.txCount, 0));
      expect(w.expected.txCount).toBeGreaterThanOrEqual(10);
      expect(w.expected.txCount).toBeLessThanOrEqual(60);
      expect(w.expected.balance.confirmed).toBe(used.reduce((n, l) => n + l.balance.confirmed, 0));
      expect(w.chains.receive).toHaveLength(used.length + 25);
      expect(w.chains.change).toHaveLength(25);
      for (const pad of [...w.chains.receive.slice(used.length), ...w.chains.change]) expect(byHash.has(pad.scripthash)).toBe(false);
    }
    // No address in two wallets, and the same seed gives the same wallets.
    const all = made.flatMap((w) => w.chains.receive.slice(0, w.expected.usedScripts.receive).map((s) => s.scripthash));
    expect(new Set(all).size).toBe(all.length);
    expect(syntheticWallets(lines, { minTxs: 10, maxTxs: 60, gap: 25, seed: 's' })).toEqual(made);
  });
});

describe('a session against the misbehaving server', () => {
  test('never more requests in flight than its cap; a failed call is a sample with its step', async () => {
    const srv = await startMisbehavingServer({ delayMs: 100, nullResults: true });
    try {
      const s = new WalletSession({ host: '127.0.0.1', port: srv.port, timeoutMs: 5000 }, 4, process.hrtime.bigint());
      await s.open();
      await Promise.all(Array.from({ length: 40 }, (_, i) => s.call('subscribe', 'blockchain.scripthash.subscribe', [hex64(i)])));
      await expect(s.call('fees', 'test.error', [-1, 'no fees here'])).rejects.toThrow('no fees here');
      s.close();
      expect(srv.meanInFlight()).toBeLessThanOrEqual(4.05);
      expect(srv.meanInFlight()).toBeGreaterThan(3);
      expect(s.samples[0]).toMatchObject({ step: 'handshake', method: 'server.version', outcome: 'ok' });
      expect(s.samples.filter((x) => x.step === 'subscribe' && x.outcome === 'ok')).toHaveLength(40);
      expect(s.samples[s.samples.length - 1]).toMatchObject({ step: 'fees', method: 'test.error', outcome: 'server-error' });
    } finally {
      await srv.close();
    }
  });

  test('the sparrow workload sends a page that timed out again on the same connection, the same page, 5 tries in all', async () => {
    // Batches (its software is one Sparrow batches with); every scripthash call left unanswered.
    const srv = await startMisbehavingServer({ nullResults: true, software: 'ElectrumX 1.16.0', answerFirst: 0 });
    try {
      const r = await syncAt(sparrowWorkload, srv.port, 300);
      expect(r.status).not.toBe('ok');
      const tries = r.samples.filter((x) => x.method === 'blockchain.scripthash.subscribe');
      expect(tries.map((x) => [x.items, x.outcome])).toEqual(Array.from({ length: 5 }, () => [20, 'timeout']));
      expect(srv.connections).toBe(1);
      expect(r.samples.filter((x) => x.method === 'blockchain.estimatefee').map((x) => x.items)).toEqual([8]);
    } finally {
      await srv.close();
    }
  });

  test('the sparrow workload: a page answered on its second try goes on in the same sync, on the same connection', async () => {
    // The first batch (the fee estimates) is left unanswered; the rest are answered.
    const srv = await startMisbehavingServer({ nullResults: true, software: 'ElectrumX 1.16.0', ignoreFirstBatches: 1 });
    try {
      // Long enough that a pause of this process (which answers too) is not taken for the ignored batch.
      const r = await syncAt(sparrowWorkload, srv.port, 1000);
      expect(r.status).toBe('ok');
      expect(r.samples.filter((x) => x.method === 'blockchain.estimatefee').map((x) => [x.items, x.outcome])).toEqual([
        [8, 'timeout'],
        [8, 'ok'],
      ]);
      expect(r.samples.filter((x) => x.method === 'blockchain.scripthash.subscribe').map((x) => x.items)).toEqual([20, 20]);
      expect(srv.connections).toBe(1);
    } finally {
      await srv.close();
    }
  });

  test('the sparrow workload: one call at a time to a server it does not batch with; a connection closed on server.features is not opened again, and the sync fails', async () => {
    const single = await startMisbehavingServer({ nullResults: true, software: 'electrs-esplora 0.4.1' });
    const closing = await startMisbehavingServer({ software: 'electrs-esplora 0.4.1', closeOnUnknown: true });
    try {
      const ok = await syncAt(sparrowWorkload, single.port, 2000);
      expect(ok.status).toBe('ok');
      expect(ok.samples.every((x) => x.items === 1)).toBe(true);
      expect(ok.samples.filter((x) => x.method === 'blockchain.estimatefee')).toHaveLength(7);
      expect(ok.samples.filter((x) => x.method === 'blockchain.scripthash.subscribe')).toHaveLength(40);

      const failed = await syncAt(sparrowWorkload, closing.port, 2000);
      expect(failed.status).not.toBe('ok');
      expect(failed.samples.map((x) => [x.method, x.outcome])).toEqual([
        ['server.version', 'ok'],
        ['server.features', 'disconnect'],
        ['blockchain.headers.subscribe', 'disconnect'],
      ]);
      expect(closing.connections).toBe(1);
    } finally {
      await Promise.all([single.close(), closing.close()]);
    }
  });

  test('the electrum workload subscribes 20 receive and 10 change scripts of an unused wallet, and nothing more', async () => {
    const srv = await startMisbehavingServer({ nullResults: true });
    try {
      const r = await syncAt(electrumWorkload, srv.port, 5000);
      expect(r.status).toBe('ok');
      expect(r.mismatch).toEqual([]);
      const subscribed = r.samples.filter((x) => x.method === 'blockchain.scripthash.subscribe');
      expect(subscribed).toHaveLength(30);
      expect(r.samples.filter((x) => x.step === 'history' || x.step === 'transactions')).toHaveLength(0);
      expect(r.durationNs).toBeGreaterThan(0n);
    } finally {
      await srv.close();
    }
  });
});
