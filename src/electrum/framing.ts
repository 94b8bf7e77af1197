/**
 * Splits a byte stream into newline-terminated messages (the Electrum protocol frames each
 * JSON-RPC message as one line). Memory stays bounded by the line cap: once a line grows past
 * `maxLineBytes` the decoder refuses it, before joining or decoding any of it, and lets go of what
 * it held of it.
 */
export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`response line exceeds ${limit} bytes`);
  }
}

const NO_TEXT = { text: '', ascii: true };

export class LineDecoder {
  private parts: Buffer[] = [];
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
        lines.push(Buffer.concat([...this.parts, piece], this.pendingBytes + piece.length));
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
      complete = Buffer.concat([...this.parts, complete], this.pendingBytes + complete.length);
      this.clear();
    }
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
    const text = complete.toString('utf8');
    return { text, ascii: text.length === complete.length };
  }

  /** Forgets the unfinished line, if any. */
  clear(): void {
    this.parts = [];
    this.pendingBytes = 0;
  }

  /** Bytes of an unfinished line held right now. */
  get buffered(): number {
    return this.pendingBytes;
  }

  private hold(piece: Buffer): void {
    if (this.pendingBytes + piece.length > this.maxLineBytes) this.refuse();
    this.parts.push(piece);
    this.pendingBytes += piece.length;
  }

  /** A refused line's bytes are let go of at once, not when its decoder is. */
  private refuse(): never {
    this.clear();
    throw new LineTooLongError(this.maxLineBytes);
  }
}
