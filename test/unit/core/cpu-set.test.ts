/** CPU lists as taskset writes them, checked against the CPUs this process may use. */
import { allowedCpus, cpuListText, cpuSetProblems, parseCpuList } from '../../../src/core/cpu-set';

test('a list reads as taskset writes it, and writes back the same way', () => {
  expect(parseCpuList('1')).toEqual([1]);
  expect(parseCpuList('0-2,5')).toEqual([0, 1, 2, 5]);
  expect(parseCpuList('3,1,1-2')).toEqual([1, 2, 3]);
  expect(cpuListText([0, 1, 2, 5, 7, 8])).toBe('0-2,5,7-8');
  expect(parseCpuList('2-1')).toBe('"2-1" runs backwards');
  expect(parseCpuList('a')).toMatch(/^"a" is not a CPU number or range/);
  expect(parseCpuList('')).toMatch(/is not a CPU number/);
});

const linux = process.platform === 'linux' ? test : test.skip;

linux('a CPU this process may not use is refused, naming it and the ones it may', () => {
  const allowed = allowedCpus();
  expect(allowed).not.toBeNull();
  expect(allowed!.length).toBeGreaterThan(0);
  expect(cpuSetProblems('--cpu', String(allowed![0]))).toEqual([]);
  const beyond = Math.max(...allowed!) + 1;
  expect(cpuSetProblems('--cpu', `${allowed![0]},${beyond}`)).toEqual([`--cpu ${allowed![0]},${beyond}: CPU ${beyond} not available here (this process may use ${cpuListText(allowed!)})`]);
  expect(cpuSetProblems('--cpus', 'x')[0]).toMatch(/^--cpus x: "x" is not a CPU number/);
});
