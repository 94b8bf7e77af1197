/** Which transaction each address's wallet calls ask for, and the refusal when the chain facts cannot say. */
import { walletSubjects } from '../../../src/bench/wallet-subjects';
import type { ChainFacts, DatasetLine } from '../../../src/core/dataset-line';
import { UserError } from '../../../src/core/user-error';

const line = (scripthash: string): DatasetLine => ({ address: null, scripthash, type: 'p2wpkh', txCount: 0, utxoCount: 0, balance: { confirmed: 0, unconfirmed: 0 } });
const tx = (c: string) => c.repeat(64);
const headers = Array.from({ length: 10 }, (_, h) => h.toString(16).padStart(2, '0').repeat(80));

test('the middle of the confirmed history by height then txid, its header, and the mempool entries', () => {
  const facts: ChainFacts = {
    headers,
    histories: new Map([
      ['a', [{ tx_hash: tx('9'), height: 2 }, { tx_hash: tx('1'), height: 7 }, { tx_hash: tx('3'), height: 5 }, { tx_hash: tx('2'), height: 5 }, { tx_hash: tx('8'), height: 0 }]],
      ['b', [{ tx_hash: tx('4'), height: 3 }, { tx_hash: tx('5'), height: -1 }]],
    ]),
  };
  const [a, b] = walletSubjects([line('a'), line('b')], facts);
  // Confirmed order: 9@2, 2@5, 3@5, 1@7 — the middle of four is the second.
  expect(a).toEqual({ txid: tx('2'), height: 5, header: headers[5], mempool: [{ tx_hash: tx('8'), height: 0 }] });
  expect(b).toEqual({ txid: tx('4'), height: 3, header: headers[3], mempool: [{ tx_hash: tx('5'), height: -1 }] });
});

test('an address with no history, only mempool entries, or no header at its height is refused, by name', () => {
  const facts: ChainFacts = { headers: headers.slice(0, 4), histories: new Map([['m', [{ tx_hash: tx('1'), height: 0 }]], ['h', [{ tx_hash: tx('2'), height: 8 }]]]) };
  const refusal = (() => {
    try {
      walletSubjects([line('x'), line('m'), line('h')], facts);
    } catch (err) {
      return err;
    }
  })();
  expect(refusal).toBeInstanceOf(UserError);
  expect((refusal as Error).message).toMatch(/3 address\(es\): x: no history; m: no confirmed transaction; h: no header at height 8/);
});
