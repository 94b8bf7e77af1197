/**
 * The line decoder on its own: lines come out whole however the stream is cut, short or held in
 * blocks; a chunk is only borrowed (the client reads every socket into one buffer); and a line
 * past the cap is refused before any of it is joined, with nothing of it kept.
 */
import { LineDecoder, LineTooLongError } from '../../../src/electrum/framing';

/** Feeds `stream` cut every `cut` bytes through one reused buffer, overwritten after each push, as the client's reads are. */
function decodeInReads(decoder: LineDecoder, stream: Buffer, cut: number, take: 'bytes' | 'text'): string[] {
  const read = Buffer.alloc(cut);
  const lines: string[] = [];
  let text = '';
  for (let at = 0; at < stream.length; at += cut) {
    const n = stream.copy(read, 0, at, at + cut);
    const chunk = read.subarray(0, n);
    if (take === 'bytes') lines.push(...decoder.push(chunk).map((l) => l.toString('utf8')));
    else text += decoder.pushText(chunk).text;
    read.fill('#');
  }
  return take === 'bytes' ? lines : text.split('\n').slice(0, -1);
}

// Lines of every regime: empty, short, one read long, many blocks long; multi-byte characters
// wherever a cut may fall, the long ones across block boundaries.
const LINES = ['', 'short', 'é'.repeat(40_000), 'x'.repeat(3 * 256 * 1024 + 17) + '€', '{"id":1}', '€'.repeat(700_000)];
const STREAM = Buffer.from(LINES.map((l) => l + '\n').join(''));

test.each([
  [65_536, 'bytes'],
  [65_536, 'text'],
  [7_919, 'bytes'],
  [7_919, 'text'],
  [1_000_003, 'text'],
] as const)('every line comes out whole from reads of %i bytes (%s), whatever reuses the read buffer after', (cut, take) => {
  expect(decodeInReads(new LineDecoder(8 << 20), STREAM, cut, take)).toEqual(LINES);
});

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
