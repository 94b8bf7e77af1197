/** Block 0's 80-byte header of mainnet and of regtest, built from their published fields. */
function header(time: number, bits: number, nonce: number): string {
  const h = Buffer.alloc(80);
  h.writeUInt32LE(1, 0);
  // merkle root of the genesis coinbase, in header (little-endian) byte order
  Buffer.from('4a5e1e4baab89f3a32518a88c31bc87f618f76673e2cc77ab2127b7afdeda33b', 'hex').reverse().copy(h, 36);
  h.writeUInt32LE(time, 68);
  h.writeUInt32LE(bits, 72);
  h.writeUInt32LE(nonce, 76);
  return h.toString('hex');
}

export const GENESIS_HEADER = {
  mainnet: header(1231006505, 0x1d00ffff, 2083236893),
  regtest: header(1296688602, 0x207fffff, 2),
};
