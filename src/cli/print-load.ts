/**
 * A request load's outcome, as the command prints it: formatted only (the session decided the
 * status and the exit code). Lines for stdout are returned; what goes to stderr goes through `log`.
 */
import { textTable } from '../core/text-table';
import { answeringText } from '../core/answering';
import { ResultsStore } from '../store/results';
import { ResultsReader } from '../store/read';
import { readLoadRun } from '../report/load-read';
import { loadRunTable } from '../report/load-tables';
import { parseStoredJson } from '../core/stored-json';
import { formatThresholdResults } from '../load/thresholds';
import { summaryText } from '../load/summary';
import type { RunOutcome } from '../runs/outcome';
import type { LoadDetail } from '../runs/kinds/load';
import { loadAbText, turnsLine } from './load-ab';

export function printLoad(o: RunOutcome<LoadDetail>, out: { json: boolean; log: (line: string) => void }): string[] {
  const d = o.detail;
  if (d.stoppedBeforeStart !== undefined) {
    out.log(`electrum-bench: stopped before the first request; ${d.stoppedBeforeStart}`);
    return [];
  }
  if (out.json) return [JSON.stringify(o.json, null, 2)];
  if (d.part === 'shard') return [`shard ${d.shard}'s own part of the test (the coordinator, shard 1, prints the whole):\n` + summaryText(d.summaries, o.answering, o.runId!, 'the coordinator')];
  if (d.part === 'merged') return [mergedText(o)];
  const summary = summaryText(d.summaries, o.answering, o.runId!, o.db!);
  const text = d.searches.length
    ? d.searches.map((f) => `${f.statement}\n  (${f.pinning})`).join('\n') + "\n\n(the table below is of each server's last step that ran; what a server answered, of its whole search)\n" + summary
    : (d.turns ? turnsLine(d.turns.turnMs, d.turns.durationMs, d.turns.servers) + '\n' : '') + summary;
  const parts = [text, ...(o.thresholds.length ? [formatThresholdResults(o.thresholds)] : []), ...(d.costs ? [d.costs] : []), ...(d.ab ? [loadAbText(d.ab)] : [])];
  if (d.aborted) out.log(`run ${o.runId} aborted: ${d.aborted}`);
  if (o.regressed.length) out.log(`regression beyond ${d.failOnPct} %: ${o.regressed.join('; ')}`);
  return [parts.join('\n\n')];
}

/** A coordinated test's whole, as its merged run reads back. */
function mergedText(o: RunOutcome<LoadDetail>): string {
  const { merged } = o.detail;
  const results = ResultsStore.open(o.db!, { readonly: true });
  try {
    const reader = new ResultsReader(results);
    const run = reader.load.run(reader.load.resolve(o.runId!) ?? o.runId!)!;
    const report = readLoadRun(reader, run, 'named');
    const table = loadRunTable(report);
    // The shards' generator checks are long: a word in the table, each shard's reasons below it.
    const g = table.head.indexOf('generator-bound');
    table.rows.forEach((row, i) => (row[g] = report.servers[i].generator?.bound ? 'yes (below)' : 'no'));
    const generator = report.servers.flatMap((s) => (s.generator?.bound ? s.generator.reasons.map((r) => `generator-bound (${s.label}): ${r}`) : []));
    const counts = reader.load.servers(run.id).map((s) => {
      const stored = (parseStoredJson(s.outcome_json ?? null) ?? {}) as Record<string, unknown>;
      const parts = Object.entries((stored.outcomes ?? {}) as Record<string, number>).map(([k, v]) => `${k} ${v}`);
      return `outcomes (${s.name}): ${parts.join(', ') || 'none'} = ${String(stored.scheduled)} scheduled; sent ${String(stored.sent)}, answered ${String(stored.answered)}`;
    });
    const skew = Object.entries(merged?.startSkew ?? {}).map(([server, s]) => `start skew (${server}): ${s.skewMs.toFixed(3)} ms between the first and the last of ${s.shards} shards`);
    const silent = o.answering.flatMap((a) => {
      const said = answeringText(a);
      return said ? [`${a.server}: ${said}`] : [];
    });
    return [
      `coordinated test of ${merged?.shards} shards, merged into load run ${run.number} of ${o.db} (${o.status}); report it with: npm run report -- --db ${o.db} --load-run ${run.number}`,
      ...silent,
      '',
      textTable(table.head, table.rows, { align: table.align }),
      '',
      ...counts,
      ...skew,
      ...generator,
      ...(o.thresholds.length ? ['', formatThresholdResults(o.thresholds)] : []),
    ].join('\n');
  } finally {
    results.close();
  }
}
