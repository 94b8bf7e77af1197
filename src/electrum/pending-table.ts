/**
 * The calls a connection awaits, by id. A client hands ids out in order and servers mostly answer
 * in order, so the calls live in a ring indexed by the id's low bits: no hashing, and nothing
 * reallocated as calls come and go (a Map's rebuilds under that churn were most of what a call
 * allocated). When an id would land on a call still pending the ring doubles, so any pattern of
 * ids works; the ring is at most as long as the widest span of ids pending at once (a call pending
 * while many later ones came and went: bounded by the calls' timeout).
 */
export class PendingTable<T> {
  private ids: number[];
  private items: Array<T | undefined>;
  private mask: number;
  private count = 0;

  constructor(capacity = 64) {
    const n = 2 ** Math.ceil(Math.log2(Math.max(2, capacity)));
    this.ids = new Array<number>(n).fill(-1);
    this.items = new Array<T | undefined>(n).fill(undefined);
    this.mask = n - 1;
  }

  get size(): number {
    return this.count;
  }

  get(id: number): T | undefined {
    const i = id & this.mask;
    return this.ids[i] === id ? this.items[i] : undefined;
  }

  /** `id` must not be pending already (a client never reuses an id). */
  set(id: number, item: T): void {
    while (this.items[id & this.mask] !== undefined) this.grow();
    const i = id & this.mask;
    this.ids[i] = id;
    this.items[i] = item;
    this.count++;
  }

  delete(id: number): boolean {
    const i = id & this.mask;
    if (this.ids[i] !== id || this.items[i] === undefined) return false;
    this.ids[i] = -1;
    this.items[i] = undefined;
    this.count--;
    return true;
  }

  /** Every pending [id, item], oldest first; deleting the current one while iterating is fine. */
  entries(): Array<[number, T]> {
    const out: Array<[number, T]> = [];
    for (let i = 0; i < this.items.length; i++) {
      const item = this.items[i];
      if (item !== undefined) out.push([this.ids[i], item]);
    }
    return out.sort((a, b) => a[0] - b[0]);
  }

  clear(): void {
    this.ids.fill(-1);
    this.items.fill(undefined);
    this.count = 0;
  }

  private grow(): void {
    const { ids, items } = this;
    const n = items.length * 2;
    this.ids = new Array<number>(n).fill(-1);
    this.items = new Array<T | undefined>(n).fill(undefined);
    this.mask = n - 1;
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (item === undefined) continue;
      const j = ids[i] & this.mask;
      this.ids[j] = ids[i];
      this.items[j] = item;
    }
  }
}
