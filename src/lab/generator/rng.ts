/**
 * A small seeded PRNG (sfc32) so amounts, output order and coin picks repeat exactly for a seed;
 * Math.random would make every generated chain different. Kept here rather than shared with
 * src/random.ts: any change to it changes every lab dataset, so it moves only with
 * GENERATOR_VERSION.
 */
import { createHash } from 'node:crypto';

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: string, stream: string) {
    const h = createHash('sha256').update(`${seed}\0${stream}`).digest();
    this.a = h.readUInt32LE(0);
    this.b = h.readUInt32LE(4);
    this.c = h.readUInt32LE(8);
    this.d = h.readUInt32LE(12);
    for (let i = 0; i < 12; i++) this.next(); // mix the raw hash words before use
  }

  /** Uniform 32-bit unsigned integer. */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Integer in [lo, hi], inclusive. Modulo bias is irrelevant at these ranges. */
  int(lo: number, hi: number): number {
    return lo + (this.next() % (hi - lo + 1));
  }

  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.next() % (i + 1);
      [items[i], items[j]] = [items[j], items[i]];
    }
    return items;
  }
}
