/**
 * "Is this server slower cold?" as a verdict per server (`bench --cold`): each address's first
 * touch after a restart against the same call in the warm passes, the totals compared with a
 * bootstrap over the cold passes, the warm passes and the first touches (src/verdicts/verdict.ts,
 * passTotalsVerdict). `slower` says the restart's cost showed; `no change` that it did not show
 * above the noise (romanz's electrs on the lab, whose lookups go to the node, which is not
 * restarted).
 */
import { passTotalsVerdict, type Verdict } from './verdict';
import { warmMeanNs } from '../store/statistics';

/** A first touch beside the same call warm, named by the server it was made to. */
export interface NamedFirstTouch {
  server: string;
  /** The cold pass it was made in (one restart). */
  pass: number;
  coldNs: number;
  /** The same call in each warm pass that answered it: pass → latency. */
  warm: ReadonlyMap<number, number>;
}

export interface ColdVerdict {
  server: string;
  /** The first touches summed, and each one's warm calls' mean summed, ns. */
  coldSumNs: number;
  warmSumNs: number;
  /** Cold against warm: `slower` when the first touches cost more than the same calls warm. */
  verdict: Verdict;
}

/** Per server (in the order the touches first name them), its first touches judged against the same calls warm. */
export function coldVerdicts(touches: readonly NamedFirstTouch[]): ColdVerdict[] {
  const byServer = new Map<string, NamedFirstTouch[]>();
  for (const t of touches) {
    if (t.warm.size === 0) continue;
    const list = byServer.get(t.server);
    if (list) list.push(t);
    else byServer.set(t.server, [t]);
  }
  return [...byServer].map(([server, ts]) => ({
    server,
    coldSumNs: ts.reduce((sum, t) => sum + t.coldNs, 0),
    warmSumNs: Math.round(ts.reduce((sum, t) => sum + warmMeanNs(t), 0)),
    verdict: passTotalsVerdict(
      ts.map((t) => ({ pass: t.pass, b: t.coldNs, a: t.warm })),
      { columns: 'first touches with a warm call' },
    ),
  }));
}
