/**
 * The unconfirmed transactions left in the mempool at the end, so the dataset has addresses whose
 * get_balance.unconfirmed is positive and negative and whose get_history ends in mempool entries.
 * All of them spend confirmed coins only: mempool chains would add height -1 entries, a rule the
 * servers implement but the lab does not need to exercise by default.
 */
import { UserError } from '../../core/user-error';
import type { Owner } from './keys';
import type { Ledger } from './ledger';
import type { AddressPlan } from './plan';
import type { Rng } from './rng';
import { BuiltTx, buildTx, Payment } from './txbuilder';

export interface MempoolContext {
  ledger: Ledger;
  rng: Rng;
  sink: Owner;
  dataset: Array<{ plan: AddressPlan; owner: Owner }>;
  fund: (payments: Payment[]) => BuiltTx; // builds, records and queues a funder payment
  keep: (tx: BuiltTx) => BuiltTx; // records and queues any other transaction
}

/** Cycles through three shapes: receive from outside, spend to outside, transfer between two. */
export function buildMempoolTxs(ctx: MempoolContext, count: number): BuiltTx[] {
  const touched = new Set<Owner>();
  type Candidate = { plan: AddressPlan; owner: Owner };
  // `required` must hold; `preferred` (a profile, an untouched address) only when some candidate has it.
  const pick = (required: (e: Candidate) => boolean, preferred: (e: Candidate) => boolean = () => true): Owner => {
    const fresh = (e: Candidate) => !touched.has(e.owner);
    const tiers = [(e: Candidate) => preferred(e) && fresh(e), fresh, preferred, () => true];
    for (const tier of tiers) {
      const pool = ctx.dataset.filter((e) => required(e) && tier(e));
      if (pool.length === 0) continue;
      const owner = pool[ctx.rng.next() % pool.length].owner;
      touched.add(owner);
      return owner;
    }
    throw new UserError('the dataset has too few confirmed coins left for that many mempool transactions: lower mempoolTxs');
  };
  const any = () => true;
  const profile = (p: AddressPlan['profile']) => (e: Candidate) => e.plan.profile === p;
  const coinsOf = (o: Owner): number => ctx.ledger.spendable(o).length;
  const built: BuiltTx[] = [];
  for (let i = 0; i < count; i++) {
    switch (i % 3) {
      case 0: {
        // Includes a drained address: zero confirmed balance, positive unconfirmed.
        const targets = [pick(any, profile('drained')), pick(any, profile('hold')), pick(any, profile('mixed'))];
        built.push(ctx.fund(targets.map((owner) => ({ owner, value: ctx.rng.int(10_000, 90_000) }))));
        break;
      }
      case 1: {
        const from = pick((e) => coinsOf(e.owner) >= 1, (e) => coinsOf(e.owner) >= 2);
        const coins = ctx.ledger.spendable(from).slice(0, 2);
        built.push(ctx.keep(buildTx(ctx.ledger, coins, [], ctx.sink)));
        break;
      }
      case 2: {
        const from = pick((e) => coinsOf(e.owner) >= 1);
        const to = pick((e) => e.owner !== from);
        const coin = ctx.ledger.spendable(from).reduce((a, b) => (b.value > a.value ? b : a));
        // Change goes back to the sender: one mempool tx both spends from and pays to it.
        built.push(ctx.keep(buildTx(ctx.ledger, [coin], [{ owner: to, value: Math.floor(coin.value / 2) }], from)));
        break;
      }
    }
  }
  return built;
}
