/**
 * A bench's outcome as the command prints it: formatted only (the session decided the status and
 * the exit code). Lines for stdout are returned; what goes to stderr goes through `log`.
 */
import { answeringText } from '../core/answering';
import { coldTable, summaryTable } from '../bench/summary';
import { compareTable } from '../report/compare';
import { verdictText } from '../verdicts/verdict';
import type { ColdVerdict } from '../verdicts/cold';
import { textTable } from '../core/text-table';
import { replyHoldLine } from '../servers/reply-hold';
import type { RunOutcome } from '../runs/outcome';
import type { BenchDetail } from '../runs/kinds/bench';

export function printBench(o: RunOutcome<BenchDetail>, out: { json: boolean; log: (line: string) => void }): string[] {
  const d = o.detail;
  if (d.stoppedBeforeStart !== undefined) {
    out.log(`electrum-bench: ${d.stoppedBeforeStart}`);
    return [];
  }
  const result = d.result!;
  const lines: string[] = [];
  if (out.json) lines.push(JSON.stringify(o.json, null, 2));
  else {
    // Before the table: a server that answered nothing, or went silent, makes its figures meaningless.
    const silent = o.answering.flatMap((a) => {
      const said = answeringText(a);
      return said ? [`${a.server}: ${said}`] : [];
    });
    const table = summaryTable(result, o.db!).split('\n');
    // A --cold run's main table is its warm passes'; the cold ones follow it.
    const head = result.cold.length ? table[0].replace('(warm-up passes excluded below)', '(warm-up and cold passes excluded below; the cold passes after)') : table[0];
    lines.push([head, ...silent, ...result.replyHolds.map(replyHoldLine), ...table.slice(1)].join('\n'));
    if (result.cold.length) lines.push(`\n${coldTable(result.cold)}`);
    if (result.coldVerdicts.length) lines.push(`\n${coldVerdictLines(result.coldVerdicts)}`);
    if (d.costs) lines.push(`\n${d.costs}`);
    if (d.ab) {
      const t = compareTable(d.ab.comparison);
      lines.push(`\n${[`A/B verdicts against ${d.ab.baseline} (B vs A, interleaved in this run):`, '', textTable(t.head, t.rows, { align: t.align })].join('\n')}`);
    }
  }
  if (o.status === 'interrupted') out.log(`run ${o.runId} interrupted; continue it with: npm run bench -- --resume ${o.runId} --db ${o.db}`);
  else if (o.regressed.length) out.log(`regression beyond ${d.failOnPct} %: ${o.regressed.join('; ')}`);
  return lines;
}

/** Per server, whether its first touches after a restart were slower than the same calls warm. */
function coldVerdictLines(verdicts: readonly ColdVerdict[]): string {
  const width = Math.max(...verdicts.map((v) => v.server.length));
  return [
    'first touches cold against the same calls warm, per server (slower: the restart cost showed; ~: not above the noise):',
    ...verdicts.map((v) => `  ${v.server.padEnd(width)}  ${verdictText(v.verdict)}`),
  ].join('\n');
}
