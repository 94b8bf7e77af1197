/**
 * The funded output scripts of one `getblock <hash> 2` answer, whatever node dialect produced it.
 * Core ≥ 22 gives `scriptPubKey.address`, older Core `addresses`, btcd neither (its `rawtx` is
 * renamed by the node transport); all of them give `scriptPubKey.hex`, so we read only that and
 * derive the rest ourselves: every dialect then yields the same candidates.
 */
import { UserError } from '../core/user-error';
import { addressOfScript, scriptHashOfScript, scriptType, NetworkName } from '../electrum/scripthash';
import type { AddressType } from './line';

export interface Candidate {
  scripthash: string;
  address: string | null;
  type: AddressType;
}

const OP_RETURN = 0x6a;

interface VerboseOut {
  value?: unknown;
  scriptPubKey?: { hex?: unknown };
}

/** Output scripts (hex) that received a non-zero amount, in block order; OP_RETURN left out. */
export function fundedScriptsOf(block: unknown, where: string): string[] {
  const txs = (block as { tx?: unknown } | null)?.tx;
  if (!Array.isArray(txs)) throw new UserError(`${where}: getblock answered without a transaction list`);
  const scripts: string[] = [];
  for (const tx of txs) {
    if (typeof tx !== 'object' || tx === null) {
      // Core before 0.16 ignores verbosity 2 and lists txids only.
      throw new UserError(`${where}: getblock <hash> 2 returned txids, not transactions (node too old for verbosity 2)`);
    }
    const vout = (tx as { vout?: unknown }).vout;
    if (!Array.isArray(vout)) throw new UserError(`${where}: a transaction without "vout"`);
    for (const out of vout as VerboseOut[]) {
      const hex = out?.scriptPubKey?.hex;
      if (typeof hex !== 'string') throw new UserError(`${where}: an output without "scriptPubKey.hex"`);
      // value is in BTC as a JSON number; exactly 0 is the only amount we need to recognise.
      if (out.value === 0) continue;
      if (hex.length >= 2 && parseInt(hex.slice(0, 2), 16) === OP_RETURN) continue;
      scripts.push(hex);
    }
  }
  return scripts;
}

/** The Electrum scripthash of a script given as hex: the key candidates are de-duplicated by. */
export function scripthashOfHex(scriptHex: string): string {
  return scriptHashOfScript(Buffer.from(scriptHex, 'hex'));
}

export function candidateOf(scriptHex: string, scripthash: string, network: NetworkName): Candidate {
  const script = Buffer.from(scriptHex, 'hex');
  const type = scriptType(script);
  return {
    scripthash,
    type,
    // A script with no template of ours is kept by scripthash only, even if some encoder could
    // spell it as an address (e.g. future witness versions).
    address: type === 'nonstandard' ? null : addressOfScript(script, network),
  };
}
