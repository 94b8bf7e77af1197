/**
 * Which calls of a run are already measured, one bit per planned call: a resumed run of 10 M calls
 * needs 1.25 MB here, not a set of 10 M strings.
 */
export class DoneSet {
  private readonly bits: Uint8Array;
  count = 0;

  constructor(
    passes: number,
    private readonly addresses: number,
    private readonly servers: number,
    private readonly methods: number,
  ) {
    this.bits = new Uint8Array(Math.ceil((passes * addresses * servers * methods) / 8));
  }

  private index(server: number, pass: number, address: number, method: number): number {
    return ((pass * this.addresses + address) * this.servers + server) * this.methods + method;
  }

  add(server: number, pass: number, address: number, method: number): void {
    const i = this.index(server, pass, address, method);
    const mask = 1 << (i & 7);
    if (this.bits[i >> 3] & mask) return;
    this.bits[i >> 3] |= mask;
    this.count++;
  }

  has(server: number, pass: number, address: number, method: number): boolean {
    const i = this.index(server, pass, address, method);
    return (this.bits[i >> 3] & (1 << (i & 7))) !== 0;
  }
}
