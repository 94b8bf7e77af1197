/**
 * Builds and signs one transaction with bitcoinjs-lib's Psbt. The fee is set from an upper bound
 * of the signed size, computed before signing, so it never depends on signature lengths: the same
 * plan gives the same amounts on every run.
 */
import * as bitcoin from 'bitcoinjs-lib';
import type { Owner, SpendKind } from './keys';
import type { Coin, Ledger } from './ledger';

// btcd's default minimum relay fee is 1000 sat/kvB of virtual size (mempool/policy.go); our
// estimate is an upper bound, so 1 sat/vB on it always clears that floor.
export const FEE_RATE_SAT_PER_VB = 1;
// Below this a change output is dropped and left to the fee (btcd's P2PKH dust limit is 546).
export const MIN_OUTPUT = 1000;

export interface Payment {
  owner: Owner;
  value: number;
}

export interface BuiltTx {
  txid: string;
  hex: string;
  inputs: Coin[];
  outputs: Payment[];
  fee: number;
}

// Upper bounds in weight units: 36-byte outpoint + 4-byte sequence + scriptSig (x4), plus witness.
// DER signatures are at most 72 bytes + 1 sighash byte.
const INPUT_WEIGHT: Record<SpendKind, number> = {
  p2pkh: (36 + 4 + 1 + 1 + 73 + 1 + 33) * 4,
  'p2sh-p2wpkh': (36 + 4 + 1 + 23) * 4 + (1 + 1 + 73 + 1 + 33),
  p2wpkh: (36 + 4 + 1) * 4 + (1 + 1 + 73 + 1 + 33),
  p2wsh: (36 + 4 + 1) * 4 + (1 + 1 + 73 + 1 + 35),
  p2tr: (36 + 4 + 1) * 4 + (1 + 1 + 64),
};

const varIntSize = (n: number): number => (n < 0xfd ? 1 : n <= 0xffff ? 3 : 5);

export function estimateVsize(inputs: Coin[], outputScripts: Uint8Array[]): number {
  const hasWitness = inputs.some((c) => c.owner.kind !== 'p2pkh');
  let weight = (4 + 4 + varIntSize(inputs.length) + varIntSize(outputScripts.length)) * 4;
  if (hasWitness) weight += 2; // segwit marker and flag
  for (const c of inputs) {
    weight += INPUT_WEIGHT[c.owner.kind];
    if (hasWitness && c.owner.kind === 'p2pkh') weight += 1; // its empty witness stack
  }
  for (const s of outputScripts) weight += (8 + varIntSize(s.length) + s.length) * 4;
  return Math.ceil(weight / 4);
}

/**
 * Spends `inputs`, pays `payments`, and sends what is left after the fee to `change` (dropped
 * into the fee when it would be dust). Throws when the inputs do not cover payments and fee.
 */
export function buildTx(ledger: Ledger, inputs: Coin[], payments: Payment[], change: Owner): BuiltTx {
  const inTotal = inputs.reduce((s, c) => s + c.value, 0);
  const outTotal = payments.reduce((s, p) => s + p.value, 0);
  const scripts = payments.map((p) => p.owner.script);
  const feeWithChange = estimateVsize(inputs, [...scripts, change.script]) * FEE_RATE_SAT_PER_VB;
  let outputs = payments;
  let fee = feeWithChange;
  const changeValue = inTotal - outTotal - feeWithChange;
  if (changeValue >= MIN_OUTPUT) {
    outputs = [...payments, { owner: change, value: changeValue }];
  } else {
    fee = inTotal - outTotal;
    if (fee < estimateVsize(inputs, scripts) * FEE_RATE_SAT_PER_VB) {
      throw new Error(`inputs worth ${inTotal} sats cannot pay ${outTotal} sats plus fee`);
    }
  }
  for (const p of outputs) {
    if (p.value < MIN_OUTPUT) throw new Error(`output of ${p.value} sats to ${p.owner.label} is below ${MIN_OUTPUT}`);
  }

  const psbt = new bitcoin.Psbt({ network: bitcoin.networks.regtest });
  for (const c of inputs) psbt.addInput(inputFields(ledger, c));
  for (const p of outputs) psbt.addOutput({ script: p.owner.script, value: BigInt(p.value) });
  inputs.forEach((c, i) => psbt.signInput(i, c.owner.signer));
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction();
  // Guards the size table above: btcd would reject a fee under 1 sat/vB of the real size.
  if (fee < tx.virtualSize() * FEE_RATE_SAT_PER_VB) {
    throw new Error(`fee ${fee} is below ${FEE_RATE_SAT_PER_VB} sat/vB of the signed size ${tx.virtualSize()} vB`);
  }
  return { txid: tx.getId(), hex: tx.toHex(), inputs, outputs, fee };
}

function inputFields(ledger: Ledger, c: Coin): Parameters<bitcoin.Psbt['addInput']>[0] {
  const o = c.owner;
  const base = { hash: c.txid, index: c.vout };
  const witnessUtxo = { script: o.script, value: BigInt(c.value) };
  switch (o.kind) {
    case 'p2pkh':
      // Legacy sighashes do not commit to amounts, so a PSBT must carry the whole previous tx.
      return { ...base, nonWitnessUtxo: ledger.raw(c.txid) };
    case 'p2wpkh':
      return { ...base, witnessUtxo };
    case 'p2sh-p2wpkh':
      return { ...base, witnessUtxo, redeemScript: o.redeemScript };
    case 'p2wsh':
      return { ...base, witnessUtxo, witnessScript: o.witnessScript };
    case 'p2tr':
      return { ...base, witnessUtxo, tapInternalKey: o.internalKey };
  }
}
