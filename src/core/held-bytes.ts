/**
 * The bytes received so far of a message still arriving (a reply line, a response body), copied
 * out of the buffers they came in, so those can be reused or freed at once. Past one socket read
 * they are kept in blocks that go back to a list shared by every holder when the message ends or is
 * refused, for the next long message: without it, the bytes of a message refused at its size cap
 * stay garbage until the next full collection while the next one fills new memory, and a server
 * answering every call past the cap took us to twice the cap.
 */

/** A socket read: a holder stopped in the middle of a long message keeps no more than the read's own buffer did. */
const BLOCK_BYTES = 64 * 1024;

const freeBlocks: Buffer[] = [];
const NO_BYTES = Buffer.alloc(0);

export class HeldBytes {
  /** In order: while short, copies of the pieces; then blocks, each full but the last. */
  private parts: Buffer[] = [];
  private inBlocks = false;
  private held = 0;

  /** `keepBytes`: what clear() may leave in the shared list at most (the size cap of the messages). */
  constructor(private readonly keepBytes: number) {}

  get bytes(): number {
    return this.held;
  }

  /** Copies `piece` after the bytes held. */
  append(piece: Buffer): void {
    if (!this.inBlocks && this.held + piece.length > BLOCK_BYTES) {
      const short = this.parts;
      this.parts = [];
      this.held = 0;
      this.inBlocks = true;
      for (const part of short) this.fill(part);
    }
    if (this.inBlocks) this.fill(piece);
    else {
      this.parts.push(Buffer.from(piece));
      this.held += piece.length;
    }
  }

  /** The bytes held followed by `more`, copied into one new buffer; nothing is held afterwards. */
  take(more: Buffer = NO_BYTES): Buffer {
    const parts = [...this.parts, more];
    if (this.inBlocks) {
      const last = this.parts.length - 1;
      parts[last] = parts[last].subarray(0, this.held - last * BLOCK_BYTES);
    }
    const joined = Buffer.concat(parts, this.held + more.length);
    this.clear();
    return joined;
  }

  /** Lets go of the bytes held; their blocks go back to the shared list. */
  clear(): void {
    if (this.inBlocks) {
      for (const block of this.parts) if (freeBlocks.length * BLOCK_BYTES < this.keepBytes) freeBlocks.push(block);
    }
    this.parts = [];
    this.inBlocks = false;
    this.held = 0;
  }

  private fill(piece: Buffer): void {
    for (let from = 0; from < piece.length; ) {
      const at = this.held % BLOCK_BYTES;
      if (at === 0) this.parts.push(freeBlocks.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES));
      const copied = piece.copy(this.parts[this.parts.length - 1], at, from);
      from += copied;
      this.held += copied;
    }
  }
}
