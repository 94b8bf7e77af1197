/**
 * A wallet load's abuse as a table: per abused server and phase, the arriving wallets' syncs, the
 * held wallets' headers notifications and the server's process, with the server's fate beside it.
 */
import type { AbuseRecord } from '../store/abuse';
import { fmtErrors, type Table } from './table';
import type { WalletRunReport } from './wallet-model';
import { runName } from './wallet-tables';

const MiB = 1024 * 1024;
const num = (v: number | null | undefined, digits = 0) => (v === null || v === undefined ? '–' : v.toFixed(digits));

/** What became of the server, in words: stayed up or fell over, answered after, recovered. */
export function fateText(a: AbuseRecord): string {
  const up = a.stayedUp === null ? 'up: not known' : a.stayedUp ? 'stayed up' : 'FELL OVER';
  const after = a.answeredAfter ? 'answered after' : 'did NOT answer after';
  const recovered = a.recoveredAfterS === null ? 'not recovered by the end' : `normal again after ${a.recoveredAfterS.toFixed(1)} s`;
  return `${up}; ${after}; ${recovered}`;
}

export function abuseTable(r: WalletRunReport): Table | null {
  const abused = r.abuse ?? [];
  if (abused.length === 0) return null;
  const head = ['server', 'abuse', 'phase', 'syncs', 'ok', 'errors', 'p50 ms', 'p99 ms', 'blocks', 'notified', 'notify p50 ms', 'CPU % core', 'RSS max MiB', 'threads max', 'open files max', 'fate'];
  const rows = abused.flatMap((a) =>
    a.phases.map((p, i) => {
      const n = p.notifications;
      const res = p.resources;
      return [
        i === 0 ? a.server : '',
        i === 0 ? `${a.spec} (${((a.window.endMs - a.window.startMs) / 1000).toFixed(1)} s, from ${((a.window.startMs - a.window.fromMs) / 1000).toFixed(1)} s)` : '',
        p.phase,
        String(p.units),
        String(p.ok),
        fmtErrors(p.errors),
        num(p.p50Ms),
        num(p.p99Ms),
        n ? String(n.blocks) : '–',
        n ? `${n.ok}/${n.expected}${n.missing ? ` (${n.missing} missing)` : ''}` : '–',
        num(n?.p50Ms),
        res?.cpuShare === null || res === null ? '–' : (res.cpuShare * 100).toFixed(0),
        res?.rssMaxBytes == null ? '–' : (res.rssMaxBytes / MiB).toFixed(1),
        num(res?.threadsMax),
        res === null ? '–' : `${num(res.fdsMax)}${res.gone ? ` (gone at ${res.gone} of ${res.readings} readings)` : ''}`,
        i === 0 ? fateText(a) : i === 1 ? (a.notSampledWhy ? `process not sampled: ${a.notSampledWhy}` : `process: ${a.sampledTarget}`) : a.notificationsWhy ? `notifications: ${a.notificationsWhy}` : '',
      ];
    }),
  );
  return {
    title: `Abuse and its collateral — ${runName(r.run)}`,
    note:
      "Each arriving wallet's sync counts in the phase it was due in (before the abuse, during it, after it until the arrivals ended); time to synced from its intended arrival. " +
      'Notified: held connections that heard the headers notification of the block mined in the phase, of those expected. ' +
      "The server's process as sampled in the phase: CPU between its first and last readings as a share of one core, the largest RSS, threads and open files read; – where not sampled. " +
      'Recovery: from the abuse\'s end to the first arrival from which every later one was ok and within twice the before phase\'s p99.',
    head,
    align: head.map((_, i) => (i < 3 || i === 5 || i === 9 || i === head.length - 1 ? 'left' : 'right')),
    rows,
  };
}
