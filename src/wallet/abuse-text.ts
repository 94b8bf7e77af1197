/**
 * --abuse's collateral as a table per server: the arriving wallets before, during and after, the
 * held wallets' notifications and the server's process in each phase, and the server's fate.
 */
import { textTable } from '../core/text-table';
import type { ServerLoadSummary } from './load';
import { PHASES } from '../engine/abuse/server-phases';

const ms = (v: number | null | undefined) => (v === null || v === undefined ? '-' : v.toFixed(0));
const errorsText = (e: Record<string, number>) => Object.entries(e).map(([k, n]) => `${k} ${n}`).join(', ') || '0';
const MiB = 1024 * 1024;

export function abuseText(rows: ServerLoadSummary[]): string {
  const abused = rows.filter((r) => r.abuse);
  if (abused.length === 0) return '';
  const parts = abused.map((r) => {
    const a = r.abuse!;
    const c = a.collateral;
    const n = a.notifications;
    const res = a.resources?.sampled ? a.resources : null;
    const table = textTable(
      ['phase', 'syncs', 'ok', 'errors', 'p50 ms', 'p99 ms', ...(n ? ['blocks', 'notified', 'notify p50 ms'] : []), ...(res ? ['CPU % core', 'RSS max MiB', 'threads max', 'open files max'] : [])],
      PHASES.map((p) => {
        const figures = [p, String(c[p].units), String(c[p].ok), errorsText(c[p].errors), ms(c[p].p50Ms), ms(c[p].p99Ms)];
        if (n) figures.push(String(n[p].blocks), `${n[p].ok}/${n[p].expected}${n[p].missing ? ` (${n[p].missing} missing)` : ''}`, ms(n[p].p50Ms));
        if (res) {
          const x = res.phases[p];
          figures.push(
            x.cpuShare === null ? '-' : (x.cpuShare * 100).toFixed(0),
            x.rssMaxBytes === null ? '-' : (x.rssMaxBytes / MiB).toFixed(1),
            x.threadsMax === null ? '-' : String(x.threadsMax),
            x.fdsMax === null ? (x.gone ? 'gone' : '-') : String(x.fdsMax) + (x.gone ? ` (gone at ${x.gone} of ${x.readings} readings)` : ''),
          );
        }
        return figures;
      }),
    );
    const up = a.stayedUp === undefined || a.stayedUp === null ? '' : a.stayedUp ? 'the server stayed up; ' : 'the server FELL OVER (its process was gone or restarted); ';
    const fate = `${up}${c.answeredDuring ? 'answered' : 'did NOT answer'} during, ${c.answeredAfter ? 'answered' : 'did NOT answer'} after; ${c.recoveredAfterS === null ? 'not recovered by the end of the run' : `served normally again ${c.recoveredAfterS.toFixed(1)} s after the abuse`}`;
    const notSaid = [
      ...(n ? [] : [`notifications per phase: ${a.notificationsWhy ?? 'not measured'}`]),
      ...(a.resources && !a.resources.sampled ? [`server resources: not sampled: ${a.resources.why}`] : []),
    ];
    const t = a.tally;
    const own = `abuse: ${t.connections} connections (${t.refused} refused, ${t.closedByServer} closed by the server), ${t.requestsSent} requests, ${(t.bytesSent / 1e6).toFixed(1)} MB, ${t.replies} replies (${t.errorReplies} errors)`;
    return [`${r.server}: --abuse ${a.spec} from ${a.startS.toFixed(1)} s to ${a.endS.toFixed(1)} s of the arrivals`, table, fate, ...notSaid, own].join('\n');
  });
  return `\n\ncollateral of the abuse (arriving wallets' syncs; held wallets' headers notifications; the server's process):\n${parts.join('\n\n')}`;
}
