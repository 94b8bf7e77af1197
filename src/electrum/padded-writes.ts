/**
 * How the Electrum wallet (4.x, `PaddedRSTransport` in its interface.py) writes to a server, as a
 * countermeasure against traffic analysis: requests wait in a send buffer, and what goes out is
 * padded with spaces (before the last message's closing brace) to a power of two of at least
 * 1 KiB. The buffer is written once it holds 1 KiB, or 1 s after the last write, or at once while
 * the connection's first 1 KiB of messages is not yet sent (so the handshake is quick). Of two ways
 * to cut a full buffer — all of it padded up to the next power of two, or the messages that fit in
 * half that size — the one with less padding is written, the rest waits.
 *
 * It costs a wallet up to a second whenever fewer than 1 KiB of requests wait: the tail of every
 * burst of requests. The code is ours; the rules are the wallet's, held to it on the wire
 * (test/wire-conformance.test.ts).
 */
export const PACKET_MIN_BYTES = 1024;
export const WAIT_FOR_MORE_MS = 1000;
/** Messages sent (unpadded, without their newline) before the buffer starts to wait. */
export const WARM_UP_BYTES = 1024;

export class PaddedWrites {
  private buffer = '';
  /** Per message waiting, in order: its length and what to call once it is written. */
  private readonly waiting: Array<{ bytes: number; written: () => void }> = [];
  private lastWriteMs: number;
  /** Bytes of the messages queued so far, each counted once queued (as the wallet's session counts them). */
  private queuedBytes = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly write: (bytes: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastWriteMs = now();
  }

  /** Queues one message, a line of ASCII JSON ending in '\n'; `written` is called when it goes out. */
  push(line: string, written: () => void = () => undefined): void {
    this.buffer += line;
    this.waiting.push({ bytes: line.length, written });
    this.writeIfDue(false);
    this.queuedBytes += line.length - 1;
    this.armTimer();
  }

  /** Writes whatever waits (the connection is closing). */
  flush(): void {
    this.stop();
    while (this.buffer.length > 0) this.writeIfDue(true);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private writeIfDue(force: boolean): void {
    const buf = this.buffer;
    if (buf.length === 0) return;
    const due = force || buf.length >= PACKET_MIN_BYTES || this.lastWriteMs + WAIT_FOR_MORE_MS < this.now() || this.queuedBytes < WARM_UP_BYTES;
    if (!due) return;
    const whole = Math.max(PACKET_MIN_BYTES, 2 ** bitLength(buf.length));
    const half = Math.max(PACKET_MIN_BYTES, whole / 2);
    const fitting = buf.lastIndexOf('\n', half - 1) + 1;
    const wholePad = whole - buf.length;
    const halfPad = fitting > 0 ? half - fitting : Infinity;
    const [taken, pad] = force || wholePad <= halfPad ? [buf.length, wholePad] : [fitting, halfPad];
    // The padding goes before the last message's closing brace and newline.
    this.write(buf.slice(0, taken - 2) + ' '.repeat(pad) + buf.slice(taken - 2, taken));
    this.lastWriteMs = this.now();
    this.buffer = buf.slice(taken);
    // Writes end at message ends: the messages written are the first ones waiting.
    for (let left = taken; left > 0; ) {
      const m = this.waiting.shift()!;
      left -= m.bytes;
      m.written();
    }
  }

  /** While anything waits, a check when 1 s since the last write has passed. */
  private armTimer(): void {
    if (this.timer || this.buffer.length === 0) return;
    const wait = Math.max(1, this.lastWriteMs + WAIT_FOR_MORE_MS - this.now() + 1);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.writeIfDue(false);
      this.armTimer();
    }, wait);
  }
}

/** Bits needed for `n` (Python's int.bit_length): 1023 → 10, 1024 → 11. */
function bitLength(n: number): number {
  return 32 - Math.clz32(n);
}
