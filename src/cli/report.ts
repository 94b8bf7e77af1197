/**
 * `electrum-bench report`: charts and tables from a results database, or `report compare` for the
 * change between two databases. Options are validated in src/report/options.ts before any I/O.
 */
import path from 'node:path';
import yargs from 'yargs';
import { runCli } from './run-cli';
import { writeReport } from '../report/report';
import { reportOptions } from '../report/options';
import { compareMarkdown, deltaTitle } from '../report/compare';
import { compareDatabases, compareServers } from '../verdicts/databases';
import { regressionLines } from '../verdicts/comparison';
import { DEFAULT_NOISE_FLOOR_PCT } from '../verdicts/verdict';
import { writeOutputs } from '../report/export/output';
import { claimInput, claimOutputDir, sameFile } from '../core/output-path';
import { UserError } from '../core/user-error';
import { onSignalWhileReading } from '../runs/signals';
import { closeOpenStores } from '../store/results';

export async function main(argv: string[]): Promise<number> {
  let code = 0;
  await yargs(argv)
    .scriptName('npm run report --')
    .command(
      '$0',
      'write charts (SVG, PNG, Vega-Lite), index.html, summary.md and medians.csv, for bench, load and wallet runs',
      (y) =>
        y
          .option('db', { type: 'string', describe: 'results database (written by npm run bench and npm run load)' })
          .option('run', { type: 'string', array: true, describe: 'bench run id(s) to report; default: the latest completed run' })
          .option('load-run', { type: 'string', array: true, describe: 'load run id(s) to report; default: the latest finished load run (naming only --run or only --load-run reports just those)' })
          .option('wallet-run', { type: 'string', array: true, describe: 'wallet run id(s) to report; default: the latest finished wallet run of each kind and workload' })
          .option('out', { type: 'string', describe: 'output directory (default results/report-<db name>)' })
          .option('exclude-server', { type: 'string', array: true, describe: 'leave a server out of the charts, to zoom on the rest' })
          .option('baseline', { type: 'string', describe: "server whose p50 the others' are divided by" })
          .option('log-x', { type: 'boolean', default: false, describe: 'logarithmic address-size axis' })
          .option('log-y', { type: 'boolean', default: false, describe: 'logarithmic latency axis' })
          .option('facet', { type: 'boolean', default: false, describe: 'one panel per server' })
          .option('force', { type: 'boolean', default: false, describe: 'replace an earlier report in --out' }),
      async (a) => {
        const opts = reportOptions({
          db: a.db,
          run: a.run,
          loadRun: a['load-run'],
          walletRun: a['wallet-run'],
          out: a.out,
          excludeServer: a['exclude-server'],
          baseline: a.baseline,
          logX: a['log-x'],
          logY: a['log-y'],
          facet: a.facet,
        });
        // Before the claim: a signal once the folder exists must find our handler, not its default
        // (death by the signal, the folder left behind unexplained).
        onSignalWhileReading(closeOpenStores, `${opts.outDir} holds only the report's files written so far (each whole), the database is as it was`);
        // Every report has these two: a folder holding them holds an earlier report.
        claimInput(opts.db, '--db');
        claimOutputDir(opts.outDir, '--out', { files: ['index.html', 'summary.md'], force: a.force });
        const files = await writeReport(opts);
        process.stdout.write(`report written to ${opts.outDir}/ (${files.length} files; open ${path.join(opts.outDir, 'index.html')})\n`);
      },
    )
    .command(
      'compare',
      'delta table of per-address medians between two databases: --db A --db B',
      (y) =>
        y
          .option('db', { type: 'string', array: true, describe: 'the two databases, A then B' })
          .option('out', { type: 'string', describe: 'also write DIR/compare.md' })
          .option('force', { type: 'boolean', default: false, describe: 'replace an earlier compare.md in --out' })
          .option('a', { type: 'string', describe: 'with one --db: the server of its latest run to compare against (A)' })
          .option('b', { type: 'string', describe: 'with one --db: the server compared with --a (B); an interleaved A/B run' })
          .option('noise-floor', { type: 'number', default: DEFAULT_NOISE_FLOOR_PCT, describe: 'percent: smaller changes are "no change" even when their interval excludes zero' })
          .option('fail-on-regression', { type: 'number', describe: 'exit 99 when any verdict is slower by more than this percent (every output still written)' }),
      (a) => {
        const dbs = a.db ?? [];
        const problems: string[] = [];
        const servers = a.a !== undefined || a.b !== undefined;
        if (servers && (a.a === undefined || a.b === undefined)) problems.push('--a and --b go together: the two servers of one run to compare');
        if (servers && dbs.length !== 1) problems.push(`--a/--b compare two servers of one run: give one --db, got ${dbs.length}`);
        if (!servers && dbs.length !== 2) problems.push(`compare takes two --db (A then B), or one --db with --a and --b, got ${dbs.length} --db`);
        if (!(a['noise-floor'] >= 0 && a['noise-floor'] < 100)) problems.push(`--noise-floor must be a percent in [0, 100), got ${a['noise-floor']}`);
        const failOn = a['fail-on-regression'];
        if (failOn !== undefined && !(failOn >= 0 && Number.isFinite(failOn))) problems.push(`--fail-on-regression must be a percent >= 0, got ${failOn}`);
        if (dbs.length === 2 && sameFile(dbs[0], dbs[1])) problems.push(`compare: --db ${dbs[0]} and --db ${dbs[1]} are one database; compare two runs' databases (or one run's servers with --a and --b)`);
        if (problems.length) throw new UserError(problems.join('; '));
        const [dbA, dbB] = dbs;
        for (const db of dbs) claimInput(db, '--db');
        onSignalWhileReading(closeOpenStores, 'nothing was written, the databases are as they were');
        if (a.out !== undefined) claimOutputDir(a.out, '--out', { files: ['compare.md'], force: a.force });
        const options = { noiseFloorPct: a['noise-floor'] };
        const comparison = servers ? compareServers(dbA, a.a!, a.b!, options) : compareDatabases(dbA, dbB, options);
        const text = servers ? compareMarkdown(comparison, `# Delta: ${a.b} (B) vs ${a.a} (A), interleaved in one run of ${dbA}`) : compareMarkdown(comparison, deltaTitle(dbA, dbB));
        if (a.out !== undefined) writeOutputs(a.out, [{ name: 'compare.md', data: text }]);
        process.stdout.write(text);
        const regressed = regressionLines(comparison, failOn);
        if (regressed.length > 0) {
          // k6's exit code for a failed threshold: CI tells a regression from a broken run.
          process.stderr.write(`regression beyond ${failOn} %: ${regressed.join('; ')}\n`);
          code = 99;
        }
      },
    )
    .strict()
    .fail((msg, err) => {
      throw err ?? new UserError(msg);
    })
    .help()
    .parseAsync();
  return code;
}

if (require.main === module) runCli(main);
