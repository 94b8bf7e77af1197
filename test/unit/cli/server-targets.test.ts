/** Which targets a command that speaks the Electrum protocol takes (src/cli/server-targets.ts). */
import { electrumTargets } from '../../../src/cli/server-targets';
import type { ServerTarget } from '../../../src/servers/targets';

const fulcrum: ServerTarget = { name: 'fulcrum', profile: 'fulcrum', host: '127.0.0.1', port: 50001, tls: false };
const rest: ServerTarget = { name: 'esplora-rest', profile: 'esplora-rest', host: '127.0.0.1', port: 3002, tls: false };
const mempoolRest: ServerTarget = { name: 'mempool-electrs-rest', profile: 'mempool-electrs-rest', host: '127.0.0.1', port: 3003, tls: false };

function stderrOf(fn: () => unknown): string {
  const written: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    fn();
  } finally {
    spy.mockRestore();
  }
  return written.join('');
}

test("the lab's REST APIs are left out of a workload, and a line says which", () => {
  let kept: ServerTarget[] = [];
  const said = stderrOf(() => (kept = electrumTargets([fulcrum, rest, mempoolRest], true)));
  expect(kept.map((t) => t.name)).toEqual(['fulcrum']);
  expect(said).toBe('--lab: esplora-rest, mempool-electrs-rest left out (--workload speaks the Electrum protocol; they are Esplora-style REST APIs)\n');
});

test('nothing is said when nothing is left out', () => {
  expect(stderrOf(() => expect(electrumTargets([fulcrum], true)).toEqual([fulcrum]))).toBe('');
});

test('a REST API named on the command line is refused, not left out', () => {
  expect(() => electrumTargets([fulcrum, rest], false, 'limits speaks')).toThrow('limits speaks the Electrum protocol; esplora-rest is an Esplora-style REST API');
});
