/**
 * Which chain a node or an Electrum server is on. Nodes name their chain in getblockchaininfo
 * (Core: main/test/testnet4/signet/regtest; btcd: mainnet/testnet3/regtest/signet); Electrum
 * servers do not say, so they are identified by the hash of their block 0.
 */
import { createHash } from 'node:crypto';
import type { NetworkName } from '../electrum/scripthash';

const CHAIN_NAMES: Record<string, NetworkName> = {
  main: 'mainnet',
  mainnet: 'mainnet',
  test: 'testnet',
  testnet: 'testnet',
  testnet3: 'testnet',
  testnet4: 'testnet', // same address prefixes as testnet3
  signet: 'signet',
  regtest: 'regtest',
};

/** The network of a getblockchaininfo `chain` value, or null for one we cannot build addresses for. */
export function networkOfChain(chain: string): NetworkName | null {
  return CHAIN_NAMES[chain.toLowerCase()] ?? null;
}

// Every regtest chain shares one genesis block, so a regtest match says "some regtest", not "the same".
const KNOWN_GENESIS: Record<string, string> = {
  '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f': 'mainnet',
  '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943': 'testnet3',
  '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043': 'testnet4',
  '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6': 'signet',
  '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206': 'regtest',
};

/** A human name for the chain whose block 0 has this hash. */
export function chainOfGenesis(hash: string): string {
  return KNOWN_GENESIS[hash] ?? `an unknown chain (genesis ${hash.slice(0, 16)}…)`;
}

/** An 80-byte header as a server sends it: 160 hex characters. */
export const isHeaderHex = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{160}$/i.test(v);

/** Block hash of an 80-byte header given as hex: double SHA-256, shown byte-reversed. */
export function headerHash(headerHex: string): string {
  const once = createHash('sha256').update(Buffer.from(headerHex, 'hex')).digest();
  return Buffer.from(createHash('sha256').update(once).digest()).reverse().toString('hex');
}
