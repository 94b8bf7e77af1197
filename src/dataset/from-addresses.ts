/**
 * `dataset addresses`: a dataset of addresses the user names, counted through the server to be
 * measured. It is the first run that needs no node and no lab: the counts come from the server
 * itself (so they are what that server says, as of its tip), not from an independent walk of the
 * chain as `dataset build` or the lab give — the manifest says so.
 */
import fs from 'node:fs';
import { UserError } from '../core/user-error';
import { outputScriptOf, scriptHashOfScript, scriptType, type NetworkName } from '../electrum/scripthash';
import { countCandidates, type CountResult } from './count';
import { genesisHashOf, openCountServer, tipOf, type CountServer } from './count-server';
import type { DatasetLine } from './line';
import type { DatasetManifest } from './manifest';
import { chainOfGenesis, networkOfChain } from './network';
import { createOutputDir, prepareOutput, type CountViaOptions, type OutputPaths } from './options';
import { writeDataset } from './output';

export interface AddressesOptions extends CountViaOptions {
  /** Each address with where it was given, for messages ("argument 2", "addresses.txt:7"). */
  addresses: Array<{ address: string; where: string }>;
  out: OutputPaths;
  force: boolean;
}

export interface AddressesResult {
  manifest: DatasetManifest;
  network: NetworkName;
  /** Addresses the server would not count (history too large for it): left out, and named. */
  refused: string[];
}

/** Addresses from the command line and from a file (one per line; blank lines and `#` comments skipped). */
export function addressesOf(positional: string[], file: string | undefined): Array<{ address: string; where: string }> {
  const given = positional.map((address, i) => ({ address: address.trim(), where: `argument ${i + 1}` }));
  if (file !== undefined) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new UserError(`--in ${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    text.split('\n').forEach((raw, i) => {
      const address = raw.replace(/#.*/, '').trim();
      if (address) given.push({ address, where: `${file}:${i + 1}` });
    });
  }
  if (given.length === 0) throw new UserError('dataset addresses: name at least one address (arguments, or --in FILE with one per line)');
  const seen = new Map<string, string>();
  for (const g of given) {
    const first = seen.get(g.address);
    if (first !== undefined) throw new UserError(`address ${g.address} (${g.where}) is given twice (also ${first})`);
    seen.set(g.address, g.where);
  }
  return given;
}

export async function datasetFromAddresses(opts: AddressesOptions): Promise<AddressesResult> {
  prepareOutput(opts.out, opts.force);
  const server = await openCountServer(opts.countVia, { connections: opts.countConnections, timeoutMs: opts.countTimeoutMs, profile: opts.countProfile });
  try {
    const network = await networkOf(server);
    const candidates = opts.addresses.map(({ address, where }) => {
      let script: Uint8Array;
      try {
        script = outputScriptOf(address, network);
      } catch {
        throw new UserError(`address ${JSON.stringify(address)} (${where}) is not a ${network} address, and ${server.label} serves ${network}`);
      }
      return { address, scripthash: scriptHashOfScript(script), type: scriptType(script) };
    });
    const tip = await tipOf(server);
    const counts = new Map<string, CountResult>();
    await countCandidates(
      server,
      candidates.map((c) => c.scripthash),
      { connections: opts.countConnections, timeoutMs: opts.countTimeoutMs, range: { minTxs: 0, maxTxs: null } },
      (results) => results.forEach(([sh, r]) => counts.set(sh, r)),
    );
    const lines: DatasetLine[] = [];
    const refused: string[] = [];
    for (const c of candidates) {
      const r = counts.get(c.scripthash);
      if (!r?.detail || r.txCount === null) refused.push(c.address);
      else lines.push({ ...c, txCount: r.txCount, ...r.detail });
    }
    if (lines.length === 0) throw new UserError(`${server.label} refused to count every address given (history too large for it): nothing written`);
    createOutputDir(opts.out);
    const manifest = writeDataset(opts.out, lines, {
      source: { node: null, countVia: server.label, countServer: server.software },
      network,
      range: null,
      tip,
      filters: { minTxs: 0, maxTxs: null, types: null, buckets: 'log10', perBucket: null, seed: '' },
      parent: null,
      notes: [
        `addresses named by the user, counted by ${server.software} at ${server.label} at its tip ${tip.height}: the counts are that server's answers, not an independent walk of the chain`,
        ...(refused.length ? [`left out (the server refused their history as too large): ${refused.join(', ')}`] : []),
      ],
    });
    return { manifest, network, refused };
  } finally {
    server.pool.close();
  }
}

/** The server's network from its block 0; a chain we cannot build addresses for is the user's to know. */
async function networkOf(server: CountServer): Promise<NetworkName> {
  const chain = chainOfGenesis(await genesisHashOf(server));
  const network = networkOfChain(chain);
  if (!network) throw new UserError(`${server.label} is on ${chain}: addresses cannot be read for it`);
  return network;
}
