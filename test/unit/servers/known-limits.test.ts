/**
 * Each profile's known limits, and a configuration's own settings replacing the defaults they name:
 * the values the pre-flight doctor plans against (src/servers/known-limits.ts).
 */
import { electrumxLimits, esploraLimits, fulcrumLimits, knownLimits } from '../../../src/servers/known-limits';
import { PROFILE_NAMES } from '../../../src/servers/profiles';
import type { LimitFinding } from '../../../src/core/server-limits';

const valuesOf = (findings: LimitFinding[]) => Object.fromEntries(findings.map((f) => [f.limit, f.value]));

test("each profile's defaults: Fulcrum per IP, max_history and max_batch, ElectrumX's sessions and MAX_SEND's history, Esplora's 500s, electrs' threads", () => {
  expect(valuesOf(knownLimits('fulcrum'))).toEqual({ 'connections-per-source': 12, 'history-size': 125_000, 'batch-size': 345 });
  // (8,100,000 - 100) // 99 = 81,817 entries are refused, so 81,816 is the largest served.
  expect(valuesOf(knownLimits('electrumx'))).toEqual({ 'connections-total': 1000, 'history-size': 81_816 });
  expect(valuesOf(knownLimits('esplora'))).toEqual({ 'history-size': 500, 'utxo-count': 500 });
  // Its REST API pages histories: only --utxos-limit is a limit there.
  expect(valuesOf(knownLimits('esplora-rest'))).toEqual({ 'utxo-count': 500 });
  expect(valuesOf(knownLimits('electrs'))).toEqual({ 'connections-total': 10_000 });
  expect(knownLimits('generic')).toEqual([]);
});

test("mempool's electrs: Esplora's two flags and defaults, past them its own messages", () => {
  expect(valuesOf(knownLimits('mempool-electrs'))).toEqual({ 'history-size': 500, 'utxo-count': 500 });
  expect(valuesOf(knownLimits('mempool-electrs-rest'))).toEqual({ 'utxo-count': 500 });
  expect(knownLimits('mempool-electrs').map((f) => [f.note, f.past])).toEqual([
    ["--electrum-txs-limit, mempool-electrs 3.1's default", { kind: 'error', code: null, message: 'Too many history transactions (>500). Contact support to raise limits.' }],
    ["--utxos-limit, mempool-electrs 3.1's default", { kind: 'error', code: null, message: 'Too many unspent transaction outputs (>500). Contact support to raise limits.' }],
  ]);
});

test('every finding is configured, names its setting and where its value comes from, and says what happens past it', () => {
  for (const profile of PROFILE_NAMES) {
    for (const f of knownLimits(profile)) {
      expect(f).toMatchObject({ source: 'configured', recoveryMs: null });
      expect(f.triedUpTo).toBe(f.value);
      expect(f.note).toMatch(/default|thread per connection/);
      expect(f.past).not.toBeNull();
    }
  }
  const perIp = knownLimits('fulcrum').find((f) => f.limit === 'connections-per-source')!;
  expect(perIp).toMatchObject({ past: { kind: 'reset' }, exempt: ['127.0.0.1/32', '::1/128'], note: "max_clients_per_ip, Fulcrum's default" });
  expect(knownLimits('fulcrum').find((f) => f.limit === 'history-size')!.past).toEqual({ kind: 'empty' });
});

test("a configuration's settings replace the defaults, and say where they come from", () => {
  const lab = fulcrumLimits({ max_clients_per_ip: '4', subnets_to_exclude_from_per_ip_limits: '' }, "the lab's fulcrum.conf");
  expect(lab.find((f) => f.limit === 'connections-per-source')).toMatchObject({ value: 4, exempt: [], note: "max_clients_per_ip, the lab's fulcrum.conf" });
  expect(lab.find((f) => f.limit === 'history-size')).toMatchObject({ value: 125_000, note: "max_history, Fulcrum's default" });
  // 0 (or empty) turns Fulcrum's per-IP limit off.
  expect(fulcrumLimits({ max_clients_per_ip: '0' }, 'x').map((f) => f.limit)).toEqual(['history-size', 'batch-size']);
  expect(valuesOf(electrumxLimits({ MAX_SESSIONS: '20000', MAX_SEND: '1000000' }, "the lab's environment"))).toEqual({ 'connections-total': 20_000, 'history-size': 10_099 });
  // ElectrumX raises MAX_SEND to at least 350,000 (session.py).
  expect(valuesOf(electrumxLimits({ MAX_SEND: '1000' }, 'x'))['history-size']).toBe(3_533); // refused from (350,000 - 100) // 99 = 3,534 entries
  expect(valuesOf(esploraLimits({ 'electrum-txs-limit': '100000', 'utxos-limit': '100000' }, "the lab's --flags", 'electrum'))).toEqual({ 'history-size': 100_000, 'utxo-count': 100_000 });
  expect(esploraLimits({ 'utxos-limit': '7' }, "the lab's --flags", 'rest')).toEqual([expect.objectContaining({ limit: 'utxo-count', value: 7, note: "--utxos-limit, the lab's --flags" })]);
});
