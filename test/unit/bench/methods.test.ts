/**
 * The wallet calls' answers checked against an address's subject: a raw transaction, a header and
 * a mempool list that agree pass; one flipped byte or entry is a mismatch. Transactions and the
 * header are built here with bitcoinjs-lib.
 */
import { createHash } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { METHODS, type CallSubject } from '../../../src/bench/methods';

const tx = new bitcoin.Transaction();
tx.addInput(createHash('sha256').update('prev').digest(), 0);
tx.addOutput(bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, 1) }).output!, 5000n);
tx.setWitness(0, [Buffer.alloc(71, 1), Buffer.alloc(33, 2)]);
const b = new bitcoin.Block();
b.version = 0x20000000;
b.prevHash = Buffer.alloc(32, 3);
b.merkleRoot = bitcoin.Block.calculateMerkleRoot([tx]);
b.timestamp = 1_700_000_000;
b.bits = 0x207fffff;
b.nonce = 1;
const header = b.toHex(true);

const subject: CallSubject = {
  line: { address: null, scripthash: 'ab'.repeat(32), type: 'p2wpkh', txCount: 1, utxoCount: 1, balance: { confirmed: 5000, unconfirmed: 0 } },
  wallet: { txid: tx.getId(), height: 42, header, mempool: [{ tx_hash: 'cd'.repeat(32), height: 0 }] },
};
const flip = (hex: string, byte: number) => hex.slice(0, byte * 2) + ((parseInt(hex.slice(byte * 2, byte * 2 + 2), 16) ^ 0x10) + 0x100).toString(16).slice(1) + hex.slice(byte * 2 + 2);

test('each wallet call asks for its subject', () => {
  expect(METHODS.tx.params(subject)).toEqual([tx.getId()]);
  expect(METHODS.merkle.params(subject)).toEqual([tx.getId(), 42]);
  expect(METHODS.header.params(subject)).toEqual([42]);
  expect(METHODS.mempool.params(subject)).toEqual([subject.line.scripthash]);
});

test('tx: the raw transaction passes, a flipped byte or another shape is a mismatch; its size is its bytes', () => {
  expect(METHODS.tx.mismatch(tx.toHex(), subject)).toBeNull();
  expect(METHODS.tx.resultSize(tx.toHex())).toBe(tx.byteLength());
  expect(METHODS.tx.mismatch(flip(tx.toHex(), 12), subject)).toMatch(/hashes to/);
  expect(METHODS.tx.mismatch({ hex: tx.toHex() }, subject)).toMatch(/not a raw transaction/);
});

test('merkle: a one-transaction block proves with an empty branch; a wrong height is a mismatch', () => {
  expect(METHODS.merkle.mismatch({ block_height: 42, merkle: [], pos: 0 }, subject)).toBeNull();
  expect(METHODS.merkle.mismatch({ block_height: 41, merkle: [], pos: 0 }, subject)).toMatch(/block_height/);
});

test("header: the block's header passes, a flipped byte or the checkpoint form is a mismatch", () => {
  expect(METHODS.header.mismatch(header, subject)).toBeNull();
  expect(METHODS.header.mismatch(flip(header, 70), subject)).toMatch(/hashes to/);
  expect(METHODS.header.mismatch({ header, branch: [], root: '' }, subject)).toMatch(/not an 80-byte header/);
});

test('mempool: the expected entries in any order pass, a missing, extra or re-heighted one is a mismatch', () => {
  const entry = { tx_hash: 'cd'.repeat(32), height: 0, fee: 200 };
  expect(METHODS.mempool.mismatch([entry], subject)).toBeNull();
  expect(METHODS.mempool.mismatch([], subject)).toMatch(/!= expected/);
  expect(METHODS.mempool.mismatch([entry, { ...entry, tx_hash: 'ef'.repeat(32) }], subject)).toMatch(/!= expected/);
  expect(METHODS.mempool.mismatch([{ ...entry, height: -1 }], subject)).toMatch(/!= expected/);
});
