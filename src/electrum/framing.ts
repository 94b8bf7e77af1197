/**
 * Splits a byte stream into newline-terminated messages (the Electrum protocol frames each
 * JSON-RPC message as one line). Memory stays bounded by the line cap: once a line grows past
 * `maxLineBytes` the decoder refuses it, before joining or decoding any of it, and lets go of what
 * it held of it. A chunk is only borrowed: what the decoder keeps of it is copied, so the caller
 * may read the next chunk into the same buffer.
 */
export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`response line exceeds ${limit} bytes`);
  }
}

const NO_TEXT = { text: '', ascii: true };

/**
 * An unfinished line longer than a socket read is held in blocks of that size (so a connection
 * that stops in the middle of a long line holds no more than it did in the read's own buffer).
 */
const BLOCK_BYTES = 64 * 1024;

/**
 * Blocks of long lines that ended or were refused, for the next long line of any decoder. Without
 * them a refused line's bytes stay garbage until the next full collection while the next line
 * fills new memory: a server answering every call with an oversized line took us to twice the cap.
 * Each decoder gives back no more than fills the list to its cap.
 */
const freeBlocks: Buffer[] = [];

export class LineDecoder {
  /** The unfinished line, in order: while short, copies of the pieces it came in; then blocks, each full but the last. */
  private parts: Buffer[] = [];
  private inBlocks = false;
  private pendingBytes = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** Returns every complete line in arrival order (without the newline), as raw bytes. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.pendingBytes + piece.length > this.maxLineBytes) this.refuse();
      if (this.pendingBytes > 0) {
        lines.push(this.joinedWith(piece));
        this.clear();
      } else {
        lines.push(piece);
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.hold(chunk.subarray(start));
    return lines;
  }

  /**
   * The same lines as push(), decoded (UTF-8) in one string for the whole chunk, each ended by its
   * '\n' ('' while none is complete): one decode per chunk instead of a Buffer and a decode per
   * line. `ascii` says every byte was one character, so a line's length is its size in bytes.
   * Only the line this chunk finishes is checked here (the one that can span many chunks);
   * lines wholly inside the chunk are the caller's to check.
   */
  pushText(chunk: Buffer): { text: string; ascii: boolean } {
    const last = chunk.lastIndexOf(0x0a);
    if (last < 0) {
      this.hold(chunk);
      return NO_TEXT;
    }
    let complete = chunk.subarray(0, last + 1);
    if (this.pendingBytes > 0) {
      if (this.pendingBytes + chunk.indexOf(0x0a) > this.maxLineBytes) this.refuse();
      complete = this.joinedWith(complete);
      this.clear();
    }
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
    const text = complete.toString('utf8');
    return { text, ascii: text.length === complete.length };
  }

  /** Forgets the unfinished line, if any. */
  clear(): void {
    if (this.inBlocks) {
      for (const block of this.parts) if (freeBlocks.length * BLOCK_BYTES < this.maxLineBytes) freeBlocks.push(block);
    }
    this.parts = [];
    this.inBlocks = false;
    this.pendingBytes = 0;
  }

  /** Bytes of an unfinished line held right now. */
  get buffered(): number {
    return this.pendingBytes;
  }

  /** The unfinished line followed by `more`, copied into one new buffer. */
  private joinedWith(more: Buffer): Buffer {
    const parts = [...this.parts, more];
    if (this.inBlocks) {
      const last = this.parts.length - 1;
      parts[last] = parts[last].subarray(0, this.pendingBytes - last * BLOCK_BYTES);
    }
    return Buffer.concat(parts, this.pendingBytes + more.length);
  }

  private hold(piece: Buffer): void {
    if (this.pendingBytes + piece.length > this.maxLineBytes) this.refuse();
    if (!this.inBlocks && this.pendingBytes + piece.length > BLOCK_BYTES) {
      const short = this.parts;
      this.parts = [];
      this.pendingBytes = 0;
      this.inBlocks = true;
      for (const part of short) this.fill(part);
    }
    if (this.inBlocks) this.fill(piece);
    else {
      this.parts.push(Buffer.from(piece));
      this.pendingBytes += piece.length;
    }
  }

  /** Copies `piece` after the line's bytes, taking a block whenever the last is full. */
  private fill(piece: Buffer): void {
    for (let from = 0; from < piece.length; ) {
      const at = this.pendingBytes % BLOCK_BYTES;
      if (at === 0) this.parts.push(freeBlocks.pop() ?? Buffer.allocUnsafeSlow(BLOCK_BYTES));
      const copied = piece.copy(this.parts[this.parts.length - 1], at, from);
      from += copied;
      this.pendingBytes += copied;
    }
  }

  /** A refused line's bytes are let go of at once, not when its decoder is. */
  private refuse(): never {
    this.clear();
    throw new LineTooLongError(this.maxLineBytes);
  }
}
