/** A dataset's chain, from its manifest or its addresses, against a server's block 0. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as bitcoin from 'bitcoinjs-lib';
import { expectedNetwork, wrongChain } from '../../../src/dataset/expected-network';
import { headerHash } from '../../../src/dataset/network';
import type { DatasetLine } from '../../../src/core/dataset-line';
import { GENESIS_HEADER } from '../../support/genesis';

const MAINNET = headerHash(GENESIS_HEADER.mainnet);
const REGTEST = headerHash(GENESIS_HEADER.regtest);

const lineOf = (address: string) => ({ address }) as DatasetLine;
const p2wpkh = (network: bitcoin.Network) => lineOf(bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 1), network }).address!);
const p2pkh = (network: bitcoin.Network) => lineOf(bitcoin.payments.p2pkh({ hash: Buffer.alloc(20, 1), network }).address!);

test('the genesis headers hash to the published block 0 hashes', () => {
  expect(MAINNET).toBe('000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f');
  expect(REGTEST).toBe('0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206');
});

test('address prefixes: bc1 is mainnet only, bcrt1 regtest only, base58 testnet shared by every test chain', () => {
  const main = expectedNetwork('d.jsonl', [p2wpkh(bitcoin.networks.bitcoin), p2pkh(bitcoin.networks.bitcoin)])!;
  expect(main.networks).toEqual(['mainnet']);
  expect(wrongChain(main, REGTEST)).toBe('regtest');
  expect(wrongChain(main, MAINNET)).toBeNull();
  const reg = expectedNetwork('d.jsonl', [p2wpkh(bitcoin.networks.regtest)])!;
  expect(wrongChain(reg, MAINNET)).toBe('mainnet');
  expect(wrongChain(reg, REGTEST)).toBeNull();
  const test58 = expectedNetwork('d.jsonl', [p2pkh(bitcoin.networks.testnet)])!;
  expect(wrongChain(test58, REGTEST)).toBeNull();
  expect(wrongChain(test58, MAINNET)).toBe('mainnet');
  // A chain we do not know gives no verdict.
  expect(wrongChain(main, 'ab'.repeat(32))).toBeNull();
});

test("a manifest's network wins over the addresses", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'expected-network-'));
  try {
    const file = path.join(dir, 'd.jsonl');
    fs.writeFileSync(path.join(dir, 'd.manifest.json'), JSON.stringify({ network: 'signet' }));
    const e = expectedNetwork(file, [p2pkh(bitcoin.networks.testnet)])!;
    expect(e.networks).toEqual(['signet']);
    expect(wrongChain(e, REGTEST)).toBe('regtest');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
