/**
 * What each request of a load run asks: a method drawn from the mix by its weight and a dataset
 * address, both from a seeded generator, so two runs with the same seed send the same requests.
 */
import { METHOD_RPC, MethodName, METHOD_NAMES } from '../../core/methods';
import type { DatasetLine } from '../../core/dataset-line';
import { seededRandom } from '../../core/random';
import { UserError } from '../../core/user-error';
import type { Mix } from '../../core/load-types';

export interface Request {
  method: MethodName;
  rpc: string;
  scripthash: string;
  line: DatasetLine; // what the answer's size is checked against
}

export class RequestPicker {
  private readonly rand: () => number;
  private readonly cumulative: Array<[number, MethodName]> = [];
  private readonly total: number;

  constructor(
    private readonly lines: readonly DatasetLine[],
    mix: Mix,
    seed: string,
  ) {
    if (lines.length === 0) throw new UserError('--dataset: no address to send requests for');
    this.rand = seededRandom(seed);
    let sum = 0;
    for (const m of METHOD_NAMES) {
      const w = mix[m] ?? 0;
      if (w > 0) this.cumulative.push([(sum += w), m]);
    }
    this.total = sum;
  }

  next(): Request {
    const r = this.rand() * this.total;
    // A plain loop: this runs once per request, and find() with a closure costs more than the draw.
    const c = this.cumulative;
    let k = 0;
    while (k < c.length - 1 && r >= c[k][0]) k++;
    const method = c[k][1];
    const line = this.lines[Math.floor(this.rand() * this.lines.length)];
    return { method, rpc: METHOD_RPC[method], scripthash: line.scripthash, line };
  }
}

/** `balance=40,history=40,utxos=20` → weights (they need not sum to 100). */
export function parseMix(text: string): Mix {
  const mix: Mix = {};
  for (const part of text.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*([0-9.]+)\s*$/.exec(part);
    if (!m) throw new UserError(`--mix: cannot parse ${JSON.stringify(part)}; expected METHOD=WEIGHT, e.g. balance=40,history=40,utxos=20`);
    if (!(METHOD_NAMES as readonly string[]).includes(m[1])) throw new UserError(`--mix: unknown method ${JSON.stringify(m[1])}; known: ${METHOD_NAMES.join(', ')}`);
    const w = Number(m[2]);
    if (!(w >= 0) || !Number.isFinite(w)) throw new UserError(`--mix: weight of ${m[1]} must be a number >= 0`);
    mix[m[1] as MethodName] = w;
  }
  if (!Object.values(mix).some((w) => (w ?? 0) > 0)) throw new UserError('--mix: at least one method needs a weight above 0');
  return mix;
}
