/** Shard I of N: parsing, and shares that add back up to the whole test. */
import { formatShard, linesOfShard, parseShard, rateShareOf, shareOf } from '../../../src/core/shard';
import { UserError } from '../../../src/core/user-error';

describe('parseShard', () => {
  it('reads I/N', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    expect(formatShard(parseShard('3/7'))).toBe('3/7');
  });

  it.each(['0/2', '3/2', '1/0', '2', 'a/b', '1/2/3', '-1/2', ''])('refuses %j, naming it', (text) => {
    expect(() => parseShard(text)).toThrow(UserError);
    expect(() => parseShard(text)).toThrow(`--shard: expected I/N with 1 <= I <= N, got ${JSON.stringify(text)}`);
  });

  it('names the input it was given', () => {
    expect(() => parseShard('5/4', 'merge: a.sqlite: shard')).toThrow(/^merge: a\.sqlite: shard: /);
  });
});

describe('shares', () => {
  it('splits an integer so the shares differ by at most one and sum to the total', () => {
    expect([1, 2, 3, 4].map((index) => shareOf({ index, count: 4 }, 10))).toEqual([3, 3, 2, 2]);
    expect([1, 2, 3].map((index) => shareOf({ index, count: 3 }, 2))).toEqual([1, 1, 0]);
    for (let count = 1; count <= 9; count++) {
      for (const total of [0, 1, 7, 64, 1001]) {
        const shares = Array.from({ length: count }, (_, k) => shareOf({ index: k + 1, count }, total));
        expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
        expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
      }
    }
    expect(shareOf(undefined, 10)).toBe(10);
  });

  it('splits a rate evenly', () => {
    expect(rateShareOf({ index: 1, count: 4 }, 1000)).toBe(250);
    expect(rateShareOf(undefined, 1000)).toBe(1000);
  });

  it('deals the dataset lines round-robin: every line to exactly one shard', () => {
    const lines = Array.from({ length: 11 }, (_, i) => `line${i}`);
    expect(linesOfShard(lines, { index: 2, count: 3 })).toEqual(['line1', 'line4', 'line7', 'line10']);
    const dealt = [1, 2, 3].flatMap((index) => linesOfShard(lines, { index, count: 3 }));
    expect(dealt.sort()).toEqual([...lines].sort());
    expect(linesOfShard(lines, undefined)).toEqual(lines);
  });
});
