/**
 * The dataset line shared by every stage: one JSON object per line (JSONL).
 * Balances are in satoshis as of the tip recorded in the dataset's manifest.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { UserError } from '../core/user-error';
import { ADDRESS_TYPES, type AddressType, type DatasetLine, type LoadedDataset } from '../core/dataset-line';
import { NETWORK_NAMES, NetworkName, outputScriptOf, scriptHashOfScript, scriptType } from '../electrum/scripthash';

export { ADDRESS_TYPES, type AddressType, type DatasetLine, type LoadedDataset } from '../core/dataset-line';

const HEX64 = /^[0-9a-f]{64}$/;

/** Parses and validates one line; the error names the file and line number. */
export function parseDatasetLine(text: string, where: string): DatasetLine {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw new UserError(`${where}: not a JSON object: ${text.slice(0, 80)}`);
  }
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
    throw new UserError(`${where}: expected a JSON object`);
  }
  const o = obj as Record<string, unknown>;
  const fail = (what: string): never => {
    throw new UserError(`${where}: ${what}`);
  };
  if (o.address !== null && o.address !== undefined && typeof o.address !== 'string') fail('"address" must be a string');
  if (typeof o.scripthash !== 'string' || !HEX64.test(o.scripthash)) fail('"scripthash" must be 64 lowercase hex characters');
  if (typeof o.type !== 'string' || !(ADDRESS_TYPES as readonly string[]).includes(o.type)) {
    fail(`"type" must be one of ${ADDRESS_TYPES.join(', ')}`);
  }
  if (typeof o.address === 'string') checkAddress(o.address, o.scripthash as string, o.type as AddressType, fail);
  const count = (k: string): number => {
    const v = o[k];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) fail(`"${k}" must be a non-negative integer`);
    return v as number;
  };
  const bal = o.balance as Record<string, unknown> | undefined;
  if (typeof bal !== 'object' || bal === null) fail('"balance" must be an object {confirmed, unconfirmed}');
  const sats = (k: string): number => {
    const v = bal![k];
    if (typeof v !== 'number' || !Number.isInteger(v)) fail(`"balance.${k}" must be an integer number of satoshis`);
    return v as number;
  };
  return {
    address: (o.address as string | undefined) ?? null,
    scripthash: o.scripthash as string,
    type: o.type as AddressType,
    txCount: count('txCount'),
    utxoCount: count('utxoCount'),
    balance: { confirmed: sats('confirmed'), unconfirmed: sats('unconfirmed') },
  };
}

/** Datasets hold one network's addresses: the last one that parsed is tried first. */
let lastNetwork: NetworkName = NETWORK_NAMES[0];

/**
 * The bench queries by scripthash and reports by address: a line whose address is a typo, or
 * belongs to another script than its scripthash, would put every figure under the wrong name.
 */
function checkAddress(address: string, scripthash: string, type: AddressType, fail: (what: string) => never): void {
  let script: Uint8Array | undefined;
  for (const network of [lastNetwork, ...NETWORK_NAMES.filter((n) => n !== lastNetwork)]) {
    try {
      script = outputScriptOf(address, network);
      lastNetwork = network;
      break;
    } catch {
      // not this network's
    }
  }
  if (script === undefined) fail(`"address" ${JSON.stringify(address)} is not a Bitcoin address of any network`);
  const own = scriptHashOfScript(script);
  if (own !== scripthash) fail(`"scripthash" does not match "address" ${address} (whose scripthash is ${own})`);
  const shape = scriptType(script);
  // A P2SH script cannot show what it wraps: a line may say what it knows (p2sh-p2wpkh).
  if (shape !== type && !(shape === 'p2sh' && type === 'p2sh-p2wpkh')) fail(`"type" is ${type} but "address" ${address} is ${shape}`);
}

export function formatDatasetLine(line: DatasetLine): string {
  return JSON.stringify({
    address: line.address,
    scripthash: line.scripthash,
    type: line.type,
    txCount: line.txCount,
    utxoCount: line.utxoCount,
    balance: { confirmed: line.balance.confirmed, unconfirmed: line.balance.unconfirmed },
  });
}


/**
 * Reads a whole JSONL dataset; a bad or repeated line is a UserError naming the file and line
 * number, and `flag` names the option the path came from.
 */
export function readDataset(file: string, flag = '--dataset'): LoadedDataset {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`${flag}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  const lines: DatasetLine[] = [];
  const seen = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = parseDatasetLine(raw, `${file}:${i + 1}`);
    const first = seen.get(line.scripthash);
    if (first !== undefined) throw new UserError(`${file}:${i + 1}: scripthash ${line.scripthash} already on line ${first}`);
    seen.set(line.scripthash, i + 1);
    lines.push(line);
  });
  if (lines.length === 0) throw new UserError(`${flag}: ${file} has no lines`);
  return {
    path: file,
    id: path.basename(file).replace(/\.jsonl$/, ''),
    hash: createHash('sha256').update(text).digest('hex'),
    lines,
  };
}
