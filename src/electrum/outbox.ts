/**
 * Calls queued on a connection, encoded as JSON-RPC request lines straight into a Buffer until
 * they are written together. Building each line as a string cost more than its write, and left
 * several strings per call for the collector (pieces, then the flattened copy the socket writes);
 * a Buffer's bytes live outside the JS heap.
 *
 * Written bytes are never overwritten: the socket may still hold them (a write the kernel did not
 * take at once waits in libuv), so a full slab is left to the socket and a new one begun.
 */
const SLAB_BYTES = 64 * 1024;
const ID_PREFIX = Buffer.from('{"jsonrpc":"2.0","id":');
/** Room for the id's digits (ids are safe integers: at most 16 digits). */
const ID_DIGITS = 16;
/** Hex (a scripthash) needs no JSON escaping. */
const PLAIN = /^[0-9A-Za-z]*$/;
/**
 * Parameters already found plain: a load run asks about the same dataset addresses again and
 * again, and a lookup (the string keeps its hash) costs a fraction of the test. Bounded.
 */
const plainSeen = new Set<string>();
const PLAIN_SEEN_MAX = 1 << 20;

function isPlain(param: string): boolean {
  if (plainSeen.has(param)) return true;
  if (!PLAIN.test(param)) return false;
  if (plainSeen.size >= PLAIN_SEEN_MAX) plainSeen.clear();
  plainSeen.add(param);
  return true;
}

export class Outbox {
  private slab = Buffer.allocUnsafe(0);
  private start = 0; // first byte not yet taken
  private end = 0; // first byte not yet written
  /** `,"method":"<method>","params":["` per method: a handful of methods, encoded once. */
  private readonly heads = new Map<string, Buffer>();

  /** Appends `{"jsonrpc":"2.0","id":<id>,"method":<method>,"params":[<param>]}` and a newline. */
  append(id: number, method: string, param: string): void {
    let head = this.heads.get(method);
    if (!head) this.heads.set(method, (head = Buffer.from(`,"method":${JSON.stringify(method)},"params":["`)));
    // The string's content between its quotes, escaped if it needs to be.
    const plain = isPlain(param);
    const text = plain ? param : JSON.stringify(param).slice(1, -1);
    const most = ID_PREFIX.length + ID_DIGITS + head.length + (plain ? text.length : Buffer.byteLength(text)) + 4;
    if (this.end + most > this.slab.length) this.newSlab(most);
    const b = this.slab;
    let o = this.end;
    b.set(ID_PREFIX, o);
    o = writeInteger(b, o + ID_PREFIX.length, id);
    b.set(head, o);
    o += head.length;
    o += b.write(text, o, plain ? 'latin1' : 'utf8');
    b[o++] = 0x22; // "
    b[o++] = 0x5d; // ]
    b[o++] = 0x7d; // }
    b[o++] = 0x0a; // \n
    this.end = o;
  }

  /** The bytes appended since the last take(), or null if none. */
  take(): Buffer | null {
    if (this.end === this.start) return null;
    const bytes = this.slab.subarray(this.start, this.end);
    this.start = this.end;
    return bytes;
  }

  /** A new slab for what is appended from now on, with what was not taken yet copied over. */
  private newSlab(atLeast: number): void {
    const kept = this.end - this.start;
    const slab = Buffer.allocUnsafe(Math.max(SLAB_BYTES, 2 * (kept + atLeast)));
    this.slab.copy(slab, 0, this.start, this.end);
    this.slab = slab;
    this.start = 0;
    this.end = kept;
  }
}

/** Writes the decimal digits of a non-negative safe integer at `o`; returns the offset after them. */
function writeInteger(b: Buffer, o: number, n: number): number {
  let digits = 1;
  for (let p = 10; p <= n; p *= 10) digits++;
  for (let i = digits - 1; i >= 0; i--) {
    const d = n % 10;
    b[o + i] = 0x30 + d;
    n = (n - d) / 10;
  }
  return o + digits;
}
