/**
 * The line decoder on its own: a line past the cap is refused before any of it is joined, with
 * nothing of it kept.
 */
import { LineDecoder, LineTooLongError } from '../../src/electrum/framing';

test('a line past the cap is refused even when the read that ends it comes with its end, and none of it is kept', () => {
  const d = new LineDecoder(100);
  expect(d.pushText(Buffer.from('x'.repeat(90))).text).toBe('');
  expect(() => d.pushText(Buffer.from('x'.repeat(20) + '\n{"id":2}\n'))).toThrow(LineTooLongError);
  expect(d.buffered).toBe(0);
});

test('a long line past the cap is refused as its bytes arrive, never held past it', () => {
  const cap = 1 << 20;
  const d = new LineDecoder(cap);
  const read = Buffer.alloc(65_536, 'x');
  let held = 0;
  let refused: unknown;
  for (let i = 0; i < 100 && !refused; i++) {
    try {
      d.pushText(read);
      held = Math.max(held, d.buffered);
    } catch (err) {
      refused = err;
    }
  }
  expect(refused).toBeInstanceOf(LineTooLongError);
  expect(held).toBeLessThanOrEqual(cap);
  expect(d.buffered).toBe(0);
});
