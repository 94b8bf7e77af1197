/**
 * The order in which a run's calls are made. Order moves figures: a server answers a call faster
 * when the call before it warmed the same caches (on the lab's ElectrumX, history and listunspent
 * measured right after a balance of the same address came out 18–29 % above the same calls made
 * one method at a time). So no call type may always follow another, and the order is recorded
 * with the run.
 *
 *   address   pass by pass, address by address; for one address every server and method back to
 *             back, the server order rotating per address and the method order going through every
 *             permutation (so each method comes first, and after each other method, equally often:
 *             a plain rotation would still always put history right after balance) (the default)
 *   method    pass by pass, one method over every address before the next method (the method
 *             order rotating per pass, servers rotating per address): no call warms another's cache
 *   shuffled  every (address, server, method) of a pass in a seeded random order
 *
 * `--shuffle` additionally gives each pass its own seeded address order (address and method orders).
 */
import { seededRandom, seededShuffle } from '../core/random';

export const CALL_ORDERS = ['address', 'method', 'shuffled'] as const;
export type CallOrder = (typeof CALL_ORDERS)[number];

export function isCallOrder(s: string): s is CallOrder {
  return (CALL_ORDERS as readonly string[]).includes(s);
}

export interface PlannedCall<M extends string = string> {
  pass: number;
  addressIdx: number;
  server: number;
  method: M;
}

export interface OrderPlan<M extends string> {
  order: CallOrder;
  passes: number;
  addresses: number;
  servers: number;
  methods: readonly M[];
  shuffle: boolean;
  seed: string;
}

/** Every planned call of a run, lazily, in the plan's order. */
export function* plannedCalls<M extends string>(plan: OrderPlan<M>): Generator<PlannedCall<M>> {
  for (let pass = 0; pass < plan.passes; pass++) yield* plannedPass(plan, pass);
}

/** Pass `pass`'s calls, lazily, in the plan's order: every order is pass by pass, so a pass stands alone. */
export function* plannedPass<M extends string>(plan: OrderPlan<M>, pass: number): Generator<PlannedCall<M>> {
  const { addresses, servers, methods, shuffle, seed } = plan;
  const natural = Array.from({ length: addresses }, (_, i) => i);
  const S = servers;
  const M = methods.length;
  const perms = methodPermutations(M);
  const addressOrder = shuffle ? seededShuffle(natural, `${seed}:pass:${pass}`) : natural;
  if (plan.order === 'address') {
    for (let k = 0; k < addressOrder.length; k++) {
      for (let s = 0; s < S; s++) {
        for (let m = 0; m < M; m++) {
          yield { pass, addressIdx: addressOrder[k], server: (s + k) % S, method: methods[perms[k % perms.length][m]] };
        }
      }
    }
  } else if (plan.order === 'method') {
    for (let m = 0; m < M; m++) {
      const method = methods[(m + pass) % M];
      for (let k = 0; k < addressOrder.length; k++) {
        for (let s = 0; s < S; s++) yield { pass, addressIdx: addressOrder[k], server: (s + k) % S, method };
      }
    }
  } else {
    // One index per call of the pass, shuffled in a typed array: memory stays 4 bytes a call.
    const n = addresses * S * M;
    const idx = new Uint32Array(n);
    for (let i = 0; i < n; i++) idx[i] = i;
    const rand = seededRandom(`${seed}:shuffled:${pass}`);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      const t = idx[i];
      idx[i] = idx[j];
      idx[j] = t;
    }
    for (let i = 0; i < n; i++) {
      const v = idx[i];
      yield { pass, addressIdx: Math.floor(v / (S * M)), server: Math.floor(v / M) % S, method: methods[v % M] };
    }
  }
}

/**
 * Every order of m methods, arranged so that consecutive addresses start with different methods.
 * Beyond 5 methods (120 orders) plain rotations are used: there are not that many methods.
 */
function methodPermutations(m: number): number[][] {
  const base = Array.from({ length: m }, (_, i) => i);
  if (m > 5) return base.map((r) => base.map((i) => (i + r) % m));
  const all: number[][] = [];
  const build = (prefix: number[], rest: number[]) => {
    if (rest.length === 0) return void all.push(prefix);
    rest.forEach((x, i) => build([...prefix, x], [...rest.slice(0, i), ...rest.slice(i + 1)]));
  };
  build([], base);
  const byFirst = base.map((f) => all.filter((p) => p[0] === f));
  const out: number[][] = [];
  for (let j = 0; j < all.length / Math.max(1, m); j++) for (const group of byFirst) out.push(group[j]);
  return out.length ? out : [base];
}
