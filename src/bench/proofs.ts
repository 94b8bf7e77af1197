/**
 * The checks that make a wallet call's answer trustworthy without trusting the server, as a
 * wallet makes them (Electrum's SPV: a transaction is shown confirmed once its Merkle branch leads
 * to the root in a header the wallet already holds). Hashes are Bitcoin's double SHA-256; hex
 * txids and block hashes are the hash's bytes reversed.
 */
import { createHash } from 'node:crypto';
import { Transaction } from 'bitcoinjs-lib';

const sha256d = (b: Buffer): Buffer => createHash('sha256').update(createHash('sha256').update(b).digest()).digest();
const displayHex = (hash: Buffer): string => Buffer.from(hash).reverse().toString('hex');
const internalBytes = (hex: string): Buffer => Buffer.from(hex, 'hex').reverse();
const HEX_32 = /^[0-9a-f]{64}$/i;

/**
 * The txid of a raw transaction. A segwit transaction's txid hashes its serialisation without the
 * witness (BIP 141), which is not the bytes the server sent: bitcoinjs-lib strips it.
 */
export function txidOfRaw(rawHex: string): string {
  return Transaction.fromHex(rawHex).getId();
}

/** The block hash of an 80-byte header. */
export function headerHash(headerHex: string): string {
  return displayHex(sha256d(Buffer.from(headerHex, 'hex')));
}

/** The Merkle root a header commits to (bytes 36..68), as hex in display order. */
export function merkleRootOfHeader(headerHex: string): string {
  return displayHex(Buffer.from(headerHex, 'hex').subarray(36, 68));
}

/**
 * The root a branch leads to from `txid` at position `pos` in its block (protocol docs,
 * blockchain.transaction.get_merkle): at each level the position's low bit says whether the
 * sibling is on the left.
 */
export function merkleRootFromBranch(txid: string, branch: readonly string[], pos: number): string {
  let hash = internalBytes(txid);
  let index = pos;
  for (const sibling of branch) {
    const other = internalBytes(sibling);
    hash = sha256d(index & 1 ? Buffer.concat([other, hash]) : Buffer.concat([hash, other]));
    index >>>= 1;
  }
  return displayHex(hash);
}

/** What is wrong with a get_merkle answer for `txid` at `height`, against the known header there; null when it proves it. */
export function merkleProblem(answer: unknown, txid: string, height: number, headerHex: string): string | null {
  const a = answer as { block_height?: unknown; merkle?: unknown; pos?: unknown } | null;
  const branch = a?.merkle;
  if (!a || typeof a !== 'object' || !Array.isArray(branch) || !Number.isInteger(a.pos) || (a.pos as number) < 0) {
    return `not a Merkle proof: ${JSON.stringify(answer).slice(0, 80)}`;
  }
  if (a.block_height !== height) return `block_height ${JSON.stringify(a.block_height)} != expected ${height}`;
  if (!branch.every((s) => typeof s === 'string' && HEX_32.test(s))) return 'Merkle branch holds something other than 32-byte hashes';
  // A position beyond the branch's leaves would let two positions prove the same leaf.
  if ((a.pos as number) >= 2 ** branch.length) return `pos ${a.pos} beyond a branch of ${branch.length}`;
  const root = merkleRootFromBranch(txid, branch as string[], a.pos as number);
  const want = merkleRootOfHeader(headerHex);
  return root === want ? null : `branch leads to root ${root}, the header at ${height} has ${want}`;
}
