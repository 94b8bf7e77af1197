/**
 * Splits a byte stream into newline-terminated messages (the Electrum protocol frames each
 * JSON-RPC message as one line). Memory stays bounded by the line cap: once a line grows past
 * `maxLineBytes` the decoder refuses it, before joining or decoding any of it, and lets go of what
 * it held of it. A chunk is only borrowed: what the decoder keeps of it is copied, so the caller
 * may read the next chunk into the same buffer.
 */
import { HeldBytes } from '../core/held-bytes';

export class LineTooLongError extends Error {
  constructor(readonly limit: number) {
    super(`response line exceeds ${limit} bytes`);
  }
}

const NO_TEXT = { text: '', ascii: true };

export class LineDecoder {
  /** The unfinished line. */
  private readonly held: HeldBytes;

  constructor(private readonly maxLineBytes: number) {
    this.held = new HeldBytes(maxLineBytes);
  }

  /** Returns every complete line in arrival order (without the newline), as raw bytes. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = chunk.subarray(start, nl);
      if (this.held.bytes + piece.length > this.maxLineBytes) this.refuse();
      if (this.held.bytes > 0) {
        lines.push(this.held.take(piece));
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
    if (this.held.bytes > 0) {
      if (this.held.bytes + chunk.indexOf(0x0a) > this.maxLineBytes) this.refuse();
      complete = this.held.take(complete);
    }
    if (last + 1 < chunk.length) this.hold(chunk.subarray(last + 1));
    const text = complete.toString('utf8');
    return { text, ascii: text.length === complete.length };
  }

  /** Forgets the unfinished line, if any. */
  clear(): void {
    this.held.clear();
  }

  /** Bytes of an unfinished line held right now. */
  get buffered(): number {
    return this.held.bytes;
  }

  private hold(piece: Buffer): void {
    if (this.held.bytes + piece.length > this.maxLineBytes) this.refuse();
    this.held.append(piece);
  }

  /** A refused line's bytes are let go of at once, not when its decoder is. */
  private refuse(): never {
    this.held.clear();
    throw new LineTooLongError(this.maxLineBytes);
  }
}
