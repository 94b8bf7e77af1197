import { searchLimit, type ProbeResult } from '../../../src/limits/search';

/** A server that serves sizes up to `limit` (steps 0..limit-1 are sizes 1..limit), counting probes. */
function upTo(limit: number) {
  const asked: number[] = [];
  const probe = async (step: number): Promise<ProbeResult> => {
    asked.push(step);
    return step + 1 <= limit ? { ok: true, bytes: (step + 1) * 10 } : { ok: false, past: { kind: 'error', code: 1, message: `too many: ${step + 1}` } };
  };
  return { asked, probe };
}

test.each([1, 2, 12, 345, 999, 1000])('finds a limit of %i exactly, in about 2·log2 probes, with what the smallest failing size got', async (limit) => {
  const s = upTo(limit);
  const r = await searchLimit(s.probe, { steps: 1000, maxProbes: 100, stop: () => false });
  if (limit === 1000) {
    expect(r).toMatchObject({ servedStep: 999, failedStep: null, past: null, triedStep: 999, cutShort: false });
    return;
  }
  expect(r).toMatchObject({ servedStep: limit - 1, servedBytes: limit * 10, failedStep: limit, past: { kind: 'error', code: 1, message: `too many: ${limit + 1}` }, cutShort: false });
  expect(r.probes).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(1000)) + 2);
});

test('a server failing the smallest size serves nothing', async () => {
  const r = await searchLimit(upTo(0).probe, { steps: 100, maxProbes: 100, stop: () => false });
  expect(r).toMatchObject({ servedStep: null, failedStep: 0, cutShort: false, probes: 1 });
});

test('bounded: out of probes or asked to stop, it ends where it is and says so', async () => {
  const s = upTo(700);
  const r = await searchLimit(s.probe, { steps: 1000, maxProbes: 5, stop: () => false });
  expect(r.probes).toBe(5);
  expect(r.cutShort).toBe(true);
  let n = 0;
  const stopped = await searchLimit(upTo(700).probe, { steps: 1000, maxProbes: 100, stop: () => ++n > 3 });
  expect(stopped).toMatchObject({ probes: 3, cutShort: true });
});
