/** The call order: every planned call once, no method always after another. */
import { plannedCalls, CallOrder } from '../../../src/bench/order';

const METHODS = ['balance', 'history', 'utxos'] as const;

describe('call order', () => {
  const plan = (order: CallOrder) => ({ order, passes: 2, addresses: 12, servers: 2, methods: METHODS, shuffle: false, seed: 's' });

  test.each(['address', 'method', 'shuffled'] as const)('%s: every planned call exactly once', (order) => {
    const calls = [...plannedCalls(plan(order))];
    expect(calls).toHaveLength(2 * 12 * 2 * 3);
    expect(new Set(calls.map((c) => `${c.pass}/${c.addressIdx}/${c.server}/${c.method}`)).size).toBe(calls.length);
    // Passes never interleave: the warm-up pass is over before a counted one begins.
    expect(calls.map((c) => c.pass)).toEqual([...calls.map((c) => c.pass)].sort());
  });

  test('address order: the first method and the first server rotate per address', () => {
    const calls = [...plannedCalls(plan('address'))].filter((c) => c.pass === 0);
    const firstPerAddress = new Map<number, { method: string; server: number }>();
    for (const c of calls) if (!firstPerAddress.has(c.addressIdx)) firstPerAddress.set(c.addressIdx, c);
    expect(new Set([...firstPerAddress.values()].map((c) => c.method))).toEqual(new Set(METHODS));
    expect(new Set([...firstPerAddress.values()].map((c) => c.server))).toEqual(new Set([0, 1]));
    // No method always follows the same other method for one address and server.
    const follows = new Map<string, Set<string>>();
    for (let i = 1; i < calls.length; i++) {
      const [a, b] = [calls[i - 1], calls[i]];
      if (a.addressIdx !== b.addressIdx || a.server !== b.server) continue;
      const set = follows.get(b.method) ?? new Set<string>();
      set.add(a.method);
      follows.set(b.method, set);
    }
    for (const m of METHODS) expect(follows.get(m)!.size).toBeGreaterThan(1);
  });

  test('method order: one method over every address before the next', () => {
    const calls = [...plannedCalls(plan('method'))].filter((c) => c.pass === 0);
    const runs = calls.map((c) => c.method).filter((m, i, all) => i === 0 || all[i - 1] !== m);
    expect(runs).toHaveLength(3);
  });

  test('shuffled order: the same seed gives the same order, another seed another', () => {
    const a = [...plannedCalls(plan('shuffled'))];
    const b = [...plannedCalls(plan('shuffled'))];
    const c = [...plannedCalls({ ...plan('shuffled'), seed: 'other' })];
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });
});
