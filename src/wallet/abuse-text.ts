/** --abuse's collateral as a table per server: the arriving wallets before, during and after, and the server's fate. */
import { textTable } from '../core/text-table';
import type { ServerLoadSummary } from './load';

const ms = (v: number | null) => (v === null ? '-' : v.toFixed(0));
const errorsText = (e: Record<string, number>) => Object.entries(e).map(([k, n]) => `${k} ${n}`).join(', ') || '0';

export function abuseText(rows: ServerLoadSummary[]): string {
  const abused = rows.filter((r) => r.abuse);
  if (abused.length === 0) return '';
  const parts = abused.map((r) => {
    const a = r.abuse!;
    const c = a.collateral;
    const table = textTable(
      ['phase', 'syncs', 'ok', 'errors', 'p50 ms', 'p99 ms'],
      (['before', 'during', 'after'] as const).map((p) => [p, String(c[p].units), String(c[p].ok), errorsText(c[p].errors), ms(c[p].p50Ms), ms(c[p].p99Ms)]),
    );
    const fate = `${c.answeredDuring ? 'answered' : 'did NOT answer'} during, ${c.answeredAfter ? 'answered' : 'did NOT answer'} after; ${c.recoveredAfterS === null ? 'not recovered by the end of the run' : `served normally again ${c.recoveredAfterS.toFixed(1)} s after the abuse`}`;
    const t = a.tally;
    const own = `abuse: ${t.connections} connections (${t.refused} refused, ${t.closedByServer} closed by the server), ${t.requestsSent} requests, ${(t.bytesSent / 1e6).toFixed(1)} MB, ${t.replies} replies (${t.errorReplies} errors)`;
    return `${r.server}: --abuse ${a.spec} from ${a.startS.toFixed(1)} s to ${a.endS.toFixed(1)} s of the arrivals\n${table}\n${fate}\n${own}`;
  });
  return `\n\ncollateral of the abuse (arriving wallets' syncs):\n${parts.join('\n\n')}`;
}
