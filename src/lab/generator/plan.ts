/**
 * The shape of the dataset before any transaction exists: which addresses, of which type, with how
 * many confirmed transactions and unspent outputs at the end. Everything here is pure arithmetic on
 * the options, so a plan is the same for the same options.
 *
 * How a history is built: an address receives in `receives` distinct fan-out transactions (one per
 * round; every fan-out pays every address that still needs receives, so ~maxTxCount fan-outs build
 * all histories at once) and spends in `spendTxs` transactions of its own. Confirmed history length
 * is therefore receives + spendTxs.
 */
import { SPEND_KINDS, SpendKind } from './keys';

/** hold: never spends; mixed: spends about half of what it got; drained: spends everything. */
export type Profile = 'hold' | 'mixed' | 'drained';
const PROFILES: Profile[] = ['hold', 'mixed', 'drained'];

// Log-spaced (roughly Fibonacci then x1.6) so every decade of history length is represented.
export const HISTORY_LADDER = [1, 2, 3, 5, 8, 13, 20, 32, 50, 80, 125, 200, 320, 500, 800, 1000, 1100, 1600, 2500, 4000];
export const DEFAULT_MAX_TX_COUNT = 1100;
const ADDRESSES_PER_SIZE = 3;

/** How many addresses have a history of `size` transactions: the same number at every size, or a function of it. */
export type AddressesPerSize = number | ((size: number) => number);

/**
 * A lab chain of scale S (S ≥ 2; scale 1 is the default chain). Like mainnet, short histories are
 * many and long ones few: 4·S·√(100/size) addresses of each size, at least 3, so S = 10 gives
 * 1,775 addresses from 400 one-transaction ones to 7 of 3,300; and from scale 4 on, longer
 * histories (up to 1,100 × ⌈S/4⌉ transactions, 5,000 at most).
 */
export function scaleShape(scale: number): { maxTxCount: number; addressesPerSize: AddressesPerSize } {
  if (!Number.isInteger(scale) || scale < 1 || scale > 20) throw new Error(`scale must be an integer in 1..20, got ${scale}`);
  if (scale === 1) return { maxTxCount: DEFAULT_MAX_TX_COUNT, addressesPerSize: ADDRESSES_PER_SIZE };
  return {
    maxTxCount: Math.min(5000, DEFAULT_MAX_TX_COUNT * Math.ceil(scale / 4)),
    addressesPerSize: (size) => Math.max(ADDRESSES_PER_SIZE, Math.round(4 * scale * Math.sqrt(100 / size))),
  };
}

export interface AddressPlan {
  index: number; // position in the plan; keys derive from it
  label: string;
  kind: SpendKind;
  profile: Profile;
  txCount: number; // confirmed history length at the end
  receives: number;
  outputsPerReceive: number; // >1 gives addresses with more UTXOs than transactions
  spendTxs: number;
  spentOutputs: number;
  finalUtxos: number;
}

export interface Plan {
  addresses: AddressPlan[];
  rounds: number; // fan-out transactions needed
  ladder: number[];
}

export function historyLadder(maxTxCount: number): number[] {
  if (!Number.isInteger(maxTxCount) || maxTxCount < 1) throw new Error(`maxTxCount must be a positive integer, got ${maxTxCount}`);
  const ladder = HISTORY_LADDER.filter((n) => n <= maxTxCount);
  if (ladder[ladder.length - 1] !== maxTxCount) ladder.push(maxTxCount);
  return ladder;
}

export function makePlan(maxTxCount: number = DEFAULT_MAX_TX_COUNT, perSize: AddressesPerSize = ADDRESSES_PER_SIZE): Plan {
  const ladder = historyLadder(maxTxCount);
  const addresses: AddressPlan[] = [];
  ladder.forEach((size, sizeIndex) => {
    const addressesPerSize = typeof perSize === 'number' ? perSize : perSize(size);
    for (let slot = 0; slot < addressesPerSize; slot++) {
      const index = addresses.length;
      // Rotating both keeps every size covered by all three profiles and spreads each type
      // over many sizes.
      const kind = SPEND_KINDS[(sizeIndex * addressesPerSize + slot) % SPEND_KINDS.length];
      let profile = PROFILES[(sizeIndex + slot) % PROFILES.length];
      if (size === 1) profile = 'hold'; // a spend needs a receive first: two transactions
      if (size === 2 && profile === 'mixed') profile = 'drained';
      let outputsPerReceive = 1;
      if (profile === 'hold' && size === 1 && slot === addressesPerSize - 1) outputsPerReceive = 3;
      else if (profile === 'hold' && sizeIndex % 4 === 1) outputsPerReceive = 2;
      addresses.push(shape(index, kind, profile, size, outputsPerReceive));
    }
  });
  for (const a of addresses) {
    const received = a.receives * a.outputsPerReceive;
    if (a.receives < 1 || a.spentOutputs < a.spendTxs || a.spentOutputs > received || a.finalUtxos !== received - a.spentOutputs) {
      throw new Error(`inconsistent plan for ${a.label}: ${JSON.stringify(a)}`);
    }
  }
  return { addresses, rounds: Math.max(...addresses.map((a) => a.receives)), ladder };
}

function shape(index: number, kind: SpendKind, profile: Profile, txCount: number, outputsPerReceive: number): AddressPlan {
  const label = `dataset/${index}/${kind}`;
  const base = { index, label, kind, profile, txCount, outputsPerReceive };
  switch (profile) {
    case 'hold':
      return { ...base, receives: txCount, spendTxs: 0, spentOutputs: 0, finalUtxos: txCount * outputsPerReceive };
    case 'mixed': {
      const spendTxs = Math.max(1, Math.round(txCount / 4));
      const receives = txCount - spendTxs;
      const spentOutputs = spendTxs + Math.floor((receives - spendTxs) / 2);
      return { ...base, receives, spendTxs, spentOutputs, finalUtxos: receives - spentOutputs };
    }
    case 'drained': {
      const spendTxs = Math.max(1, Math.round(txCount / 3));
      const receives = txCount - spendTxs;
      return { ...base, receives, spendTxs, spentOutputs: receives, finalUtxos: 0 };
    }
  }
}
