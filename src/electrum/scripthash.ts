/**
 * Address → scriptPubKey → Electrum scripthash (protocol docs, "Script Hashes": the SHA-256 of the
 * output script, bytes reversed, hex). bitcoinjs-lib does the decoding for every standard type.
 */
import { createHash } from 'node:crypto';
import * as bitcoin from 'bitcoinjs-lib';
import * as ecc from '@bitcoinerlab/secp256k1';
import { UserError } from '../core/user-error';
import type { AddressType } from '../core/dataset-line';

// Taproot addresses carry an x-only key that bitcoinjs-lib checks with a secp256k1 backend.
bitcoin.initEccLib(ecc);

export type NetworkName = 'mainnet' | 'testnet' | 'signet' | 'regtest';
export const NETWORK_NAMES: NetworkName[] = ['mainnet', 'testnet', 'signet', 'regtest'];

export function bitcoinNetwork(name: NetworkName): bitcoin.Network {
  switch (name) {
    case 'mainnet':
      return bitcoin.networks.bitcoin;
    case 'testnet':
    case 'signet': // signet shares testnet's prefixes
      return bitcoin.networks.testnet;
    case 'regtest':
      return bitcoin.networks.regtest;
  }
}

export function scriptHashOfScript(script: Uint8Array): string {
  return Buffer.from(createHash('sha256').update(script).digest()).reverse().toString('hex');
}

export function outputScriptOf(address: string, network: NetworkName): Uint8Array {
  try {
    return bitcoin.address.toOutputScript(address, bitcoinNetwork(network));
  } catch (err) {
    throw new UserError(`not a ${network} address: ${JSON.stringify(address)} (${(err as Error).message})`);
  }
}

export function scriptHashOfAddress(address: string, network: NetworkName): string {
  return scriptHashOfScript(outputScriptOf(address, network));
}

/** Classifies an output script by its template. P2SH cannot tell what it wraps: it is 'p2sh'. */
export function scriptType(script: Uint8Array): AddressType {
  const s = Buffer.from(script);
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac) return 'p2pkh';
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87) return 'p2sh';
  if (s.length === 22 && s[0] === 0x00 && s[1] === 0x14) return 'p2wpkh';
  if (s.length === 34 && s[0] === 0x00 && s[1] === 0x20) return 'p2wsh';
  if (s.length === 34 && s[0] === 0x51 && s[1] === 0x20) return 'p2tr';
  return 'nonstandard';
}

/** The address of a standard script, or null for a nonstandard one. */
export function addressOfScript(script: Uint8Array, network: NetworkName): string | null {
  try {
    return bitcoin.address.fromOutputScript(script, bitcoinNetwork(network));
  } catch {
    return null;
  }
}
