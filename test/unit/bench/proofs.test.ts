/**
 * The wallet calls' checks on real Bitcoin data: blocks built here with bitcoinjs-lib (segwit
 * transactions among them), their Merkle branches computed level by level as a server builds its
 * tree. A correct answer passes; the same answer with one byte flipped fails.
 */
import { createHash } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import { headerHash, merkleProblem, merkleRootOfHeader, txidOfRaw } from '../../../src/bench/proofs';

const sha256d = (b: Uint8Array) => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();

function transaction(seed: number, segwit: boolean): bitcoin.Transaction {
  const tx = new bitcoin.Transaction();
  tx.version = 2;
  tx.addInput(createHash('sha256').update(`prev ${seed}`).digest(), seed % 3);
  tx.addOutput(bitcoin.payments.p2wpkh({ hash: Buffer.alloc(20, seed) }).output!, BigInt(1000 + seed));
  if (segwit) tx.setWitness(0, [Buffer.alloc(71, seed), Buffer.alloc(33, 2)]);
  return tx;
}

function block(n: number): { block: bitcoin.Block; txs: bitcoin.Transaction[] } {
  const txs = Array.from({ length: n }, (_, i) => transaction(i + 1, i % 2 === 1));
  const b = new bitcoin.Block();
  b.version = 0x20000000;
  b.prevHash = createHash('sha256').update('parent').digest();
  b.merkleRoot = bitcoin.Block.calculateMerkleRoot(txs);
  b.timestamp = 1_700_000_000;
  b.bits = 0x207fffff;
  b.nonce = 7;
  b.transactions = txs;
  return { block: b, txs };
}

/** The branch of leaf `pos`, by building every level of the tree (an odd level pairs its last hash with itself). */
function branchOf(txs: bitcoin.Transaction[], pos: number): string[] {
  let level = txs.map((t) => t.getHash());
  const branch: string[] = [];
  let index = pos;
  while (level.length > 1) {
    if (level.length % 2 === 1) level.push(level[level.length - 1]);
    branch.push(Buffer.from(level[index ^ 1]).reverse().toString('hex'));
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(sha256d(Buffer.concat([level[i], level[i + 1]])));
    level = next;
    index >>= 1;
  }
  return branch;
}

const flipHex = (hex: string, byte: number) => hex.slice(0, byte * 2) + ((parseInt(hex.slice(byte * 2, byte * 2 + 2), 16) ^ 1) + 0x100).toString(16).slice(1) + hex.slice(byte * 2 + 2);
const headerHex = (b: bitcoin.Block) => b.toHex(true);

describe('txidOfRaw', () => {
  test("a segwit transaction's txid hashes it without its witness, not the bytes sent", () => {
    const tx = transaction(5, true);
    const stripped = tx.clone();
    stripped.ins.forEach((_, i) => stripped.setWitness(i, []));
    const expected = Buffer.from(sha256d(stripped.toBuffer())).reverse().toString('hex');
    const ofAllBytes = Buffer.from(sha256d(tx.toBuffer())).reverse().toString('hex');
    expect(txidOfRaw(tx.toHex())).toBe(expected);
    expect(expected).not.toBe(ofAllBytes);
  });

  test('a legacy transaction hashes to its txid; one flipped byte does not', () => {
    const tx = transaction(4, false);
    const expected = Buffer.from(sha256d(tx.toBuffer())).reverse().toString('hex');
    expect(txidOfRaw(tx.toHex())).toBe(expected);
    // Byte 10 is inside the input's previous txid: the transaction still parses.
    expect(txidOfRaw(flipHex(tx.toHex(), 10))).not.toBe(expected);
  });
});

describe('headers', () => {
  test("a header hashes to its block's hash and holds its Merkle root; a flipped byte changes the hash", () => {
    const { block: b } = block(3);
    expect(headerHash(headerHex(b))).toBe(b.getId());
    expect(merkleRootOfHeader(headerHex(b))).toBe(Buffer.from(b.merkleRoot!).reverse().toString('hex'));
    expect(headerHash(flipHex(headerHex(b), 79))).not.toBe(b.getId());
  });
});

describe('merkleProblem', () => {
  test.each([1, 2, 5, 8, 13])('every transaction of a block of %i is proven into its header', (n) => {
    const { block: b, txs } = block(n);
    for (const [pos, tx] of txs.entries()) {
      const answer = { block_height: 100, merkle: branchOf(txs, pos), pos };
      expect(merkleProblem(answer, tx.getId(), 100, headerHex(b))).toBeNull();
    }
  });

  test('a flipped byte in the branch, the txid or the header root, another position or height: each fails', () => {
    const { block: b, txs } = block(7);
    const pos = 5;
    const txid = txs[pos].getId();
    const branch = branchOf(txs, pos);
    const header = headerHex(b);
    const ok = { block_height: 100, merkle: branch, pos };
    expect(merkleProblem(ok, txid, 100, header)).toBeNull();
    expect(merkleProblem({ ...ok, merkle: [branch[0], flipHex(branch[1], 0), branch[2]] }, txid, 100, header)).toMatch(/leads to root/);
    expect(merkleProblem(ok, flipHex(txid, 31), 100, header)).toMatch(/leads to root/);
    expect(merkleProblem(ok, txid, 100, flipHex(header, 40))).toMatch(/leads to root/);
    expect(merkleProblem({ ...ok, pos: 4 }, txid, 100, header)).toMatch(/leads to root/);
    expect(merkleProblem({ ...ok, pos: pos + 8 }, txid, 100, header)).toMatch(/beyond/);
    expect(merkleProblem(ok, txid, 101, header)).toMatch(/block_height 100 != expected 101/);
    expect(merkleProblem({ block_height: 100, pos }, txid, 100, header)).toMatch(/not a Merkle proof/);
  });
});
