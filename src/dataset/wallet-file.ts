/**
 * Wallets JSONL files (one WalletLine per line): reading with a clear error naming the file, line
 * and field, and writing in a fixed key order so the same wallets give the same bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { UserError } from '../core/user-error';
import { ADDRESS_TYPES, type AddressType } from '../core/dataset-line';
import { WALLET_CHAINS, type WalletChain } from '../core/wallet-chain';
import type { LoadedWallets, WalletLine, WalletScript } from '../core/wallet-line';
import { fullSyncCalls, scriptsScanned, type WorkloadName } from '../core/wallet-scan';

const HEX64 = /^[0-9a-f]{64}$/;

export function parseWalletLine(text: string, where: string): WalletLine {
  const fail = (what: string): never => {
    throw new UserError(`${where}: ${what}`);
  };
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    return fail(`not a JSON object: ${text.slice(0, 80)}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail('expected a JSON object (a wallet)');
  const o = obj as Record<string, unknown>;
  if (typeof o.wallet !== 'string' || o.wallet === '') fail('"wallet" must be a non-empty name');
  if (o.origin !== 'lab' && o.origin !== 'synthetic') fail('"origin" must be "lab" or "synthetic"');
  if (typeof o.type !== 'string' || !(ADDRESS_TYPES as readonly string[]).includes(o.type)) fail(`"type" must be one of ${ADDRESS_TYPES.join(', ')}`);
  if (typeof o.gap !== 'number' || !Number.isInteger(o.gap) || o.gap < 0) fail('"gap" must be a non-negative integer');
  const chainsIn = o.chains as Record<string, unknown> | undefined;
  if (typeof chainsIn !== 'object' || chainsIn === null) fail('"chains" must be an object {receive, change}');
  const chains = {} as Record<WalletChain, WalletScript[]>;
  for (const c of WALLET_CHAINS) {
    const list = chainsIn![c];
    if (!Array.isArray(list)) fail(`"chains.${c}" must be an array of {address, scripthash}`);
    chains[c] = (list as unknown[]).map((s, i) => {
      const e = s as Record<string, unknown>;
      if (typeof e !== 'object' || e === null || typeof e.scripthash !== 'string' || !HEX64.test(e.scripthash)) {
        fail(`"chains.${c}[${i}].scripthash" must be 64 lowercase hex characters`);
      }
      if (e.address !== null && e.address !== undefined && typeof e.address !== 'string') fail(`"chains.${c}[${i}].address" must be a string or null`);
      return { address: (e.address as string | undefined) ?? null, scripthash: e.scripthash as string };
    });
  }
  if (chains.receive.length === 0) fail('"chains.receive" lists no script');
  const ex = o.expected as Record<string, unknown> | undefined;
  if (typeof ex !== 'object' || ex === null) fail('"expected" must be an object');
  const count = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(`"expected.${name}" must be a non-negative integer`);
    return v as number;
  };
  const bal = ex!.balance as Record<string, unknown> | undefined;
  if (typeof bal !== 'object' || bal === null || !Number.isInteger(bal.confirmed) || !Number.isInteger(bal.unconfirmed)) {
    fail('"expected.balance" must be {confirmed, unconfirmed} in satoshis');
  }
  const used = ex!.usedScripts as Record<string, unknown> | undefined;
  if (typeof used !== 'object' || used === null) fail('"expected.usedScripts" must be {receive, change}');
  const usedScripts = { receive: count(used!.receive, 'usedScripts.receive'), change: count(used!.change, 'usedScripts.change') };
  for (const c of WALLET_CHAINS) {
    if (usedScripts[c] > chains[c].length) fail(`"expected.usedScripts.${c}" (${usedScripts[c]}) exceeds the ${chains[c].length} scripts listed`);
  }
  let descriptors: WalletLine['descriptors'];
  if (o.descriptors !== undefined) {
    const d = o.descriptors as Record<string, unknown>;
    if (typeof d !== 'object' || d === null || typeof d.receive !== 'string' || typeof d.change !== 'string') fail('"descriptors" must be {receive, change} strings');
    descriptors = { receive: d.receive as string, change: d.change as string };
  }
  if (typeof ex!.txCountExact !== 'boolean') fail('"expected.txCountExact" must be true or false');
  const txCount = count(ex!.txCount, 'txCount');
  // Implied by the rest; a file may state it (ours do, for its readers), and must then agree.
  const fullSync = fullSyncCalls(usedScripts, txCount, txCount);
  if (ex!.fullSync !== undefined && JSON.stringify(ex!.fullSync) !== JSON.stringify(fullSync)) {
    fail(`"expected.fullSync" disagrees with "usedScripts" and "txCount", which imply ${JSON.stringify(fullSync)}`);
  }
  return {
    wallet: o.wallet as string,
    origin: o.origin as WalletLine['origin'],
    type: o.type as AddressType,
    ...(descriptors ? { descriptors } : {}),
    gap: o.gap as number,
    chains,
    expected: {
      txCount,
      txCountExact: ex!.txCountExact as boolean,
      balance: { confirmed: bal!.confirmed as number, unconfirmed: bal!.unconfirmed as number },
      usedScripts,
      fullSync,
    },
  };
}

export function formatWalletLine(w: WalletLine): string {
  return JSON.stringify({
    wallet: w.wallet,
    origin: w.origin,
    type: w.type,
    ...(w.descriptors ? { descriptors: { receive: w.descriptors.receive, change: w.descriptors.change } } : {}),
    gap: w.gap,
    expected: {
      txCount: w.expected.txCount,
      txCountExact: w.expected.txCountExact,
      balance: { confirmed: w.expected.balance.confirmed, unconfirmed: w.expected.balance.unconfirmed },
      usedScripts: { receive: w.expected.usedScripts.receive, change: w.expected.usedScripts.change },
      fullSync: w.expected.fullSync,
    },
    chains: {
      receive: w.chains.receive.map((s) => ({ address: s.address, scripthash: s.scripthash })),
      change: w.chains.change.map((s) => ({ address: s.address, scripthash: s.scripthash })),
    },
  });
}

export function walletsText(wallets: WalletLine[]): string {
  return wallets.map(formatWalletLine).join('\n') + '\n';
}

/**
 * Reads a whole wallets file; `flag` names the option the path came from. With `scannedBy`, each
 * wallet must list every script that workload's full sync asks about: found here, a short list is
 * one line naming the file and line, before any server is asked.
 */
export function readWallets(file: string, flag = '--wallets', scannedBy?: WorkloadName): LoadedWallets {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const wallets: WalletLine[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const w = parseWalletLine(raw, `${file}:${i + 1}`);
    if (scannedBy) checkScanFits(w, scannedBy, `${file}:${i + 1}`);
    const first = seen.get(w.wallet);
    if (first !== undefined) throw new UserError(`${file}:${i + 1}: wallet ${JSON.stringify(w.wallet)} already on line ${first}`);
    seen.set(w.wallet, i + 1);
    wallets.push(w);
  });
  if (wallets.length === 0) throw new UserError(`${flag}: ${file} has no wallets`);
  return { path: file, id: path.basename(file).replace(/\.jsonl$/, ''), hash: createHash('sha256').update(text).digest('hex'), wallets };
}

/** A wallet listing fewer scripts than the workload's scan asks about (its gap too small for it). */
function checkScanFits(w: WalletLine, workload: WorkloadName, where: string): void {
  const needed = scriptsScanned(workload, w.expected.usedScripts);
  const short = WALLET_CHAINS.filter((c) => w.chains[c].length < needed[c]);
  if (short.length === 0) return;
  const said = short.map((c) => `${w.chains[c].length} ${c} scripts where it asks for ${needed[c]} (${w.expected.usedScripts[c]} used + ${needed[c] - w.expected.usedScripts[c]})`);
  const gap = Math.max(...WALLET_CHAINS.map((c) => needed[c] - w.expected.usedScripts[c]));
  throw new UserError(
    `${where}: wallet ${JSON.stringify(w.wallet)} has gap ${w.gap}, too small for a full sync by the ${workload} workload: it lists ${said.join(' and ')}; write the file again with dataset wallets --gap ${gap} or more`,
  );
}
