/** The lab chain's scale: scale 1 is the default plan exactly; larger scales spread like mainnet. */
import { DEFAULT_MAX_TX_COUNT, makePlan, scaleShape } from '../../../../src/lab/generator/plan';

test('scale 1 is the default chain, address for address', () => {
  const { maxTxCount, addressesPerSize } = scaleShape(1);
  expect(makePlan(maxTxCount, addressesPerSize)).toEqual(makePlan());
  expect(makePlan().addresses).toHaveLength(51);
});

test('scale 10: thousands of addresses, many short histories and few long ones, up to 3,300 transactions', () => {
  const { maxTxCount, addressesPerSize } = scaleShape(10);
  const plan = makePlan(maxTxCount, addressesPerSize);
  expect(plan.addresses.length).toBeGreaterThanOrEqual(1500);
  const count = (n: number) => plan.addresses.filter((a) => a.txCount === n).length;
  expect(Math.max(...plan.addresses.map((a) => a.txCount))).toBe(Math.min(5000, DEFAULT_MAX_TX_COUNT * 3));
  expect(count(1)).toBeGreaterThan(10 * count(1000));
  const sizes = plan.ladder.map(count);
  expect(sizes.every((n, i) => i === 0 || n <= sizes[i - 1])).toBe(true);
  expect(Math.min(...sizes)).toBeGreaterThanOrEqual(3); // every size has every profile
  // Each history is exactly its plan: receives + spends, and what stays unspent adds up.
  for (const a of plan.addresses) expect(a.receives + a.spendTxs).toBe(a.txCount);
});

test('scales outside 1..20 are refused', () => {
  expect(() => scaleShape(0)).toThrow(/1\.\.20/);
  expect(() => scaleShape(2.5)).toThrow(/1\.\.20/);
});
