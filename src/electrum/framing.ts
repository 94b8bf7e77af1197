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

  /** Bytes of an unfinished line held right now. */
  get buffered(): number {
    return this.pendingBytes;
  }
}
