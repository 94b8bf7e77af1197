/**
 * Which chain a dataset's addresses belong to, so a server on another chain is refused before the
 * first query (its answers would all be "no history", measured as fast, valid results). The
 * manifest says it when there is one; otherwise the addresses do, through their prefixes: bc1/1/3
 * are mainnet's, bcrt1 regtest's, while tb1 and the testnet base58 prefixes are shared by
 * testnet, signet and (base58) regtest, so those leave several chains possible.
 */
import fs from 'node:fs';
import type { DatasetLine } from '../core/dataset-line';
import { NETWORK_NAMES, NetworkName, outputScriptOf } from '../electrum/scripthash';
import { manifestPathOf } from './options';
import { chainOfGenesis } from './network';
import type { LoadedWallets } from '../core/wallet-line';

/** The genesis chains (as chainOfGenesis names them) each network's addresses can live on. */
const CHAINS: Record<NetworkName, string[]> = {
  mainnet: ['mainnet'],
  testnet: ['testnet3', 'testnet4'],
  signet: ['signet'],
  regtest: ['regtest'],
};

/** Lines looked at when there is no manifest: a dataset holds one network's addresses. */
const SAMPLE = 200;

export interface ExpectedNetwork {
  networks: NetworkName[];
  /** Where the expectation comes from, for the refusal's line. */
  source: string;
}

/** `lines`: a dataset's lines, or a wallets file's scripts (anything with an address or none). */
export function expectedNetwork(file: string, lines: ReadonlyArray<Pick<DatasetLine, 'address'>>, flag = '--dataset'): ExpectedNetwork | null {
  const manifest = manifestNetwork(manifestPathOf(file));
  if (manifest) return { networks: [manifest], source: `${flag} ${file} (its manifest: ${manifest})` };
  let looked = 0;
  let possible: NetworkName[] = [...NETWORK_NAMES];
  for (const line of lines) {
    if (!line.address) continue;
    if (++looked > SAMPLE) break;
    possible = possible.filter((n) => parses(line.address!, n));
  }
  if (possible.length === 0 || possible.length === NETWORK_NAMES.length) return null;
  return { networks: possible, source: `${flag} ${file} (${possible.join(' or ')} addresses)` };
}

/** Null when the server may serve the dataset; otherwise the chain the server is on. */
export function wrongChain(expected: ExpectedNetwork, genesisHash: string): string | null {
  const chain = chainOfGenesis(genesisHash);
  if (!Object.values(CHAINS).flat().includes(chain)) return null; // a chain we do not know: no verdict
  return expected.networks.some((n) => CHAINS[n].includes(chain)) ? null : chain;
}

function parses(address: string, network: NetworkName): boolean {
  try {
    outputScriptOf(address, network);
    return true;
  } catch {
    return false;
  }
}

function manifestNetwork(file: string): NetworkName | null {
  try {
    const m = JSON.parse(fs.readFileSync(file, 'utf8')) as { network?: unknown };
    return typeof m.network === 'string' && (NETWORK_NAMES as string[]).includes(m.network) ? (m.network as NetworkName) : null;
  } catch {
    return null;
  }
}

/** A wallets file's chain, from the addresses of its scripts. */
export function walletsNetwork(wallets: LoadedWallets): ExpectedNetwork | null {
  return expectedNetwork(wallets.path, wallets.wallets.flatMap((w) => [...w.chains.receive, ...w.chains.change]), '--wallets');
}
