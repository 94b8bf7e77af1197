/** Bitcoin wire-format helpers for the REST bodies (CompactSize, hash byte order). */

/** CompactSize, the length prefix of Bitcoin's serialization (1, 3, 5 or 9 bytes, little-endian). */
export function compactSize(n: number): Buffer {
  if (n < 0xfd) return Buffer.from([n]);
  if (n <= 0xffff) {
    const b = Buffer.alloc(3);
    b[0] = 0xfd;
    b.writeUInt16LE(n, 1);
    return b;
  }
  if (n <= 0xffffffff) {
    const b = Buffer.alloc(5);
    b[0] = 0xfe;
    b.writeUInt32LE(n, 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = 0xff;
  b.writeBigUInt64LE(BigInt(n), 1);
  return b;
}

/** The CompactSize at `offset` and the offset just after it. */
export function compactSizeAt(b: Buffer, offset: number): { value: number; next: number } {
  const first = b[offset];
  if (first < 0xfd) return { value: first, next: offset + 1 };
  if (first === 0xfd) return { value: b.readUInt16LE(offset + 1), next: offset + 3 };
  if (first === 0xfe) return { value: b.readUInt32LE(offset + 1), next: offset + 5 };
  return { value: Number(b.readBigUInt64LE(offset + 1)), next: offset + 9 };
}

/** A serialized CTxOut: int64 LE value, then the CompactSize-prefixed scriptPubKey. */
export function txOutBytes(valueSats: bigint, script: Uint8Array): Buffer {
  const v = Buffer.alloc(8);
  v.writeBigInt64LE(valueSats);
  return Buffer.concat([v, compactSize(script.length), Buffer.from(script)]);
}

/** Hashes are displayed byte-reversed relative to their serialization. */
export function hashToWire(displayHex: string): Buffer {
  return Buffer.from(displayHex, 'hex').reverse();
}

const HASH_HEX = /^[0-9a-fA-F]{64}$/;
export function isHashHex(s: string): boolean {
  return HASH_HEX.test(s);
}

export function satsToBtc(sats: bigint): number {
  return Number(sats) / 1e8;
}

export function btcToSats(btc: number): bigint {
  return BigInt(Math.round(btc * 1e8));
}
