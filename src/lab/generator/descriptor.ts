/**
 * Output descriptors of the lab's wallets (BIP-380 and the script expressions of BIP-381/382/386),
 * with their checksum, so a lab wallet can be imported into Bitcoin Core, BDK or Sparrow as is.
 */
import type { SpendKind } from './keys';

/** `KEY` is a key expression, e.g. `[fingerprint/84h/1h/0h]tpub…/0/*`. */
export function descriptorOf(kind: SpendKind, key: string): string {
  const body = {
    p2pkh: `pkh(${key})`,
    'p2sh-p2wpkh': `sh(wpkh(${key}))`,
    p2wpkh: `wpkh(${key})`,
    // The lab's P2WSH script is <pubkey> OP_CHECKSIG (keys.ts).
    p2wsh: `wsh(pk(${key}))`,
    // BIP-86: the key tweaked by its own hash, no script tree (keys.ts's taproot signer).
    p2tr: `tr(${key})`,
  }[kind];
  return `${body}#${descriptorChecksum(body)}`;
}

/** BIP-44/49/84/86 purposes, and BIP-48's script type 2 for single-key P2WSH. */
export const PURPOSE_PATH: Record<SpendKind, string> = {
  p2pkh: "44'/1'/0'",
  'p2sh-p2wpkh': "49'/1'/0'",
  p2wpkh: "84'/1'/0'",
  p2wsh: "48'/1'/0'/2'",
  p2tr: "86'/1'/0'",
};

// BIP-380: each character's position in INPUT_CHARSET feeds a BCH code over GF(32) whose eight
// symbols are written in the bech32 alphabet.
const INPUT_CHARSET = '0123456789()[],\'/*abcdefgh@:$%{}IJKLMNOPQRSTUVWXYZ&+-.;<=>?!^_|~ijklmnopqrstuvwxyzABCDEFGH`#"\\ ';
const CHECKSUM_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const GENERATOR = [0xf5dee51989n, 0xa9fdca3312n, 0x1bab10e32dn, 0x3706b1677an, 0x644d626ffdn];

function polymod(symbols: number[]): bigint {
  let chk = 1n;
  for (const value of symbols) {
    const top = chk >> 35n;
    chk = ((chk & 0x7ffffffffn) << 5n) ^ BigInt(value);
    for (let i = 0; i < 5; i++) if ((top >> BigInt(i)) & 1n) chk ^= GENERATOR[i];
  }
  return chk;
}

export function descriptorChecksum(descriptor: string): string {
  const symbols: number[] = [];
  let groups: number[] = [];
  for (const ch of descriptor) {
    const v = INPUT_CHARSET.indexOf(ch);
    if (v < 0) throw new Error(`descriptor has a character outside BIP-380's set: ${JSON.stringify(ch)}`);
    symbols.push(v & 31);
    groups.push(v >> 5);
    if (groups.length === 3) {
      symbols.push(groups[0] * 9 + groups[1] * 3 + groups[2]);
      groups = [];
    }
  }
  if (groups.length === 1) symbols.push(groups[0]);
  else if (groups.length === 2) symbols.push(groups[0] * 3 + groups[1]);
  const checksum = polymod([...symbols, 0, 0, 0, 0, 0, 0, 0, 0]) ^ 1n;
  let out = '';
  for (let i = 0; i < 8; i++) out += CHECKSUM_CHARSET[Number((checksum >> BigInt(5 * (7 - i))) & 31n)];
  return out;
}
