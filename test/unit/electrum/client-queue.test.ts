/**
 * The Electrum client's queued-call path, piece by piece: the outbox writes exactly the line
 * JSON.stringify would and never overwrites bytes handed to the socket, and the ring of pending
 * calls finds every id whatever the order calls are answered in.
 */
import { Outbox } from '../../../src/electrum/outbox';
import { PendingTable } from '../../../src/electrum/pending-table';

const line = (id: number, method: string, param: string) => JSON.stringify({ jsonrpc: '2.0', id, method, params: [param] }) + '\n';

test('the outbox encodes what JSON.stringify would, escaping a parameter that needs it', () => {
  const o = new Outbox();
  const calls: Array<[number, string, string]> = [
    [1, 'blockchain.scripthash.get_balance', 'ab'.repeat(32)],
    [10, 'blockchain.scripthash.get_history', ''],
    [99, 'm"x', 'quote " backslash \\ newline \n'],
    [12345678901234, 'blockchain.scripthash.listunspent', 'Ünïcödé ✓'],
    [0, 'server.ping', '0'],
  ];
  for (const [id, m, p] of calls) o.append(id, m, p);
  expect(o.take()!.toString('utf8')).toBe(calls.map(([id, m, p]) => line(id, m, p)).join(''));
  expect(o.take()).toBeNull();
});

test('bytes taken are never overwritten, across slabs', () => {
  const o = new Outbox();
  const taken: Array<[Buffer, string]> = [];
  let expected = '';
  for (let id = 1; id <= 5000; id++) {
    o.append(id, 'blockchain.scripthash.get_balance', id.toString(16).padStart(64, '0'));
    expected += line(id, 'blockchain.scripthash.get_balance', id.toString(16).padStart(64, '0'));
    if (id % 7 === 0) {
      const b = o.take()!;
      taken.push([b, b.toString('latin1')]);
    }
  }
  taken.push([o.take()!, '']);
  taken[taken.length - 1][1] = taken[taken.length - 1][0].toString('latin1');
  for (const [b, asTaken] of taken) expect(b.toString('latin1')).toBe(asTaken);
  expect(taken.map(([, t]) => t).join('')).toBe(expected);
});

test('the pending ring finds every id, in any order of answers, and grows past a slow one', () => {
  const t = new PendingTable<string>(4);
  t.set(1, 'a');
  for (let id = 2; id <= 100; id++) {
    t.set(id, `c${id}`);
    if (id > 2) expect(t.delete(id - 1)).toBe(true); // answered in order, except id 1
  }
  expect(t.size).toBe(2);
  expect(t.get(1)).toBe('a'); // still pending while 98 later ids came and went
  expect(t.get(100)).toBe('c100');
  expect(t.get(50)).toBeUndefined();
  expect(t.delete(50)).toBe(false);
  expect(t.entries()).toEqual([
    [1, 'a'],
    [100, 'c100'],
  ]);
  // Ids from a server are whatever it sent: none of these may match a pending call.
  for (const odd of ['1', 1.5, -1, NaN, 2 ** 40 + 1]) expect(t.get(odd as number)).toBeUndefined();
  t.clear();
  expect(t.size).toBe(0);
  expect(t.get(1)).toBeUndefined();
});
