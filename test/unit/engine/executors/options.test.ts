/**
 * Each load executor declares the options that choose it and builds its config from them; `load`
 * declares every registered executor's options and asks the registry which one the given options
 * name. So these hold for every executor in the registry, including one added after this test:
 * its options reach `load`'s yargs, its flag chooses it, and it is named when the choice is unclear.
 */
import { loadArgs } from '../../../../src/cli/load';
import { arrivalModel, loadPlan, type LoadPlan } from '../../../../src/cli/load-plan';
import { CHOOSABLE, executorOptions } from '../../../../src/engine/executors/registry';

async function plan(argv: string[]): Promise<LoadPlan> {
  return loadPlan(await loadArgs(['--server', 'electrumx', ...argv]).parseAsync());
}

async function problems(argv: string[]): Promise<string> {
  try {
    await plan(argv);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${argv.join(' ')} was taken`);
}

test('every executor option is declared once, as each executor that reads it declares it, and load takes it', () => {
  const options = executorOptions();
  expect(options.length).toBeGreaterThan(CHOOSABLE.length); // --start-rate, --think-time, ... beside the flags
  const declared = (loadArgs([]) as unknown as { getOptions(): { key: Record<string, unknown>; number: string[]; string: string[] } }).getOptions();
  for (const [name, option] of options) {
    expect({ name, declared: name in declared.key }).toEqual({ name, declared: true });
    expect({ name, type: declared[option.type].includes(name) }).toEqual({ name, type: true });
  }
  for (const e of CHOOSABLE) expect(Object.keys(e.choice.options)).toContain(e.choice.flag);
  expect(new Set(CHOOSABLE.map((e) => e.choice.flag)).size).toBe(CHOOSABLE.length);
});

test.each([
  [['--rate', '50'], { kind: 'rate', rate: 50 }],
  [['--stages', '10s:100', '--start-rate', '5'], { kind: 'stages', stages: [{ durationMs: 10_000, target: 100 }], startRate: 5 }],
  [['--vus', '3', '--think-time', '20ms'], { kind: 'vus', vus: 3, thinkTimeMs: 20 }],
  [['--vus-stages', '10s:4', '--start-vus', '1'], { kind: 'vus-stages', stages: [{ durationMs: 10_000, target: 4 }], startVus: 1, thinkTimeMs: 0 }],
  // --vus gives the iterations' users; it chooses nothing itself beside them.
  [['--vus', '3', '--iterations', '9'], { kind: 'shared-iterations', vus: 3, iterations: 9, thinkTimeMs: 0 }],
  [['--iterations-per-vu', '4'], { kind: 'per-vu-iterations', vus: 1, iterations: 4, thinkTimeMs: 0 }],
])('%j chooses its executor and builds its config', async (argv, model) => {
  expect((await plan(argv)).model).toEqual(model);
});

test('no load model, or two: the line names every registered way to give one, and what was given', async () => {
  for (const argv of [[], ['--rate', '10', '--vus', '2']]) {
    const text = await problems(argv);
    expect(text).toMatch(/^give exactly one load model: /);
    for (const e of CHOOSABLE) expect(text).toContain(e.choice.usage);
  }
  expect(await problems(['--rate', '10', '--vus', '2'])).toMatch(/\(got --rate, --vus\)$/);
});

test('--duration applies as the chosen executor says; --find-max refuses every executor flag', async () => {
  expect((await plan(['--rate', '5'])).durationMs).toBe(60_000);
  expect((await plan(['--iterations', '5'])).durationMs).toBe(600_000);
  expect((await plan(['--rate', '5', '--duration', '3s'])).durationMs).toBe(3000);
  expect(await problems(['--vus-stages', '10s:4', '--duration', '5s'])).toBe('--duration does not apply to --vus-stages: the stages set the length');
  expect(await problems(['--find-max', '--slo', 'p99<100ms', '--stages', '10s:5', '--iterations', '3'])).toBe('--find-max chooses the rates itself; drop --stages, --iterations');
});

test("a parse problem and the config's own problems come together", async () => {
  expect(await problems(['--vus', '0', '--think-time', 'soon'])).toBe(
    '--think-time: cannot parse duration "soon"; expected e.g. 500ms, 30s, 2m, 1h; --vus must be an integer > 0, got 0',
  );
});

test('--workload without an arrival option chooses no executor', async () => {
  const noted: string[] = [];
  expect(arrivalModel(await loadArgs(['--workload', 'electrum', '--hold', '3']).parseAsync(), noted)).toBeUndefined();
  expect(noted).toEqual([]);
});
