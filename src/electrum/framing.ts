/**
 * Splits a byte stream into newline-terminated messages (the Electrum protocol frames each
 * JSON-RPC message as one line). Memory stays bounded: once an unfinished line grows past
 * `maxLineBytes` the decoder refuses it instead of buffering without end.
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
      if (this.pendingBytes + piece.length > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
      if (this.parts.length > 0) {
        this.parts.push(piece);
        lines.push(Buffer.concat(this.parts, this.pendingBytes + piece.length));
        this.parts = [];
        this.pendingBytes = 0;
      } else {
        lines.push(piece);
      }
      start = nl + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.pendingBytes += rest.length;
      if (this.pendingBytes > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
      this.parts.push(rest);
    }
    return lines;
  }

  /**
   * The same lines as push(), decoded (UTF-8) in one string for the whole chunk, each ended by its
   * '\n' ('' while none is complete): one decode per chunk instead of a Buffer and a decode per
   * line. `ascii` says every byte was one character, so a line's length is its size in bytes.
   * Only the unfinished line's size is checked here; complete lines are the caller's to check.
   */
  pushText(chunk: Buffer): { text: string; ascii: boolean } {
    const last = chunk.lastIndexOf(0x0a);
    if (last < 0) {
      this.hold(chunk);
      return NO_TEXT;
    }
    let complete = chunk.subarray(0, last + 1);
    if (this.parts.length > 0) {
      this.parts.push(complete);
      complete = Buffer.concat(this.parts, this.pendingBytes + complete.length);
      this.parts = [];
      this.pendingBytes = 0;
    }
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
    const text = complete.toString('utf8');
    return { text, ascii: text.length === complete.length };
  }

  private hold(piece: Buffer): void {
    this.pendingBytes += piece.length;
    if (this.pendingBytes > this.maxLineBytes) throw new LineTooLongError(this.maxLineBytes);
    this.parts.push(piece);
  }

  /** Bytes of an unfinished line held right now. */
  get buffered(): number {
    return this.pendingBytes;
  }
}
