/**
 * `electrum-bench report`: charts and tables from a results database, or `report compare` for the
 * change between two databases.
 */
import path from 'node:path';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { runCli } from './run-cli';
import { writeReport } from '../report/report';
import { compareDatabases, compareMarkdown } from '../report/compare';
import { prepareOutDir, writeOutput } from '../report/export/exporter';
import { UserError } from '../user-error';

async function main(): Promise<number> {
  let code = 0;
  await yargs(hideBin(process.argv))
    .scriptName('npm run report --')
    .command(
      '$0',
      'write charts (SVG, PNG, Vega-Lite), index.html, summary.md and medians.csv',
      (y) =>
        y
          .option('db', { type: 'string', demandOption: true, describe: 'results database' })
          .option('run', { type: 'number', array: true, describe: 'run id(s); default: the latest completed run' })
          .option('out', { type: 'string', describe: 'output directory (default results/report-<db name>)' })
          .option('exclude-server', { type: 'string', array: true, describe: 'leave a server out, to zoom on the rest' })
          .option('baseline', { type: 'string', describe: 'server whose p50 the others are divided by' })
          .option('log-x', { type: 'boolean', default: false })
          .option('log-y', { type: 'boolean', default: false })
          .option('facet', { type: 'boolean', default: false, describe: 'one panel per server' }),
      async (a) => {
        const outDir = a.out ?? path.join('results', `report-${path.basename(a.db).replace(/\.sqlite$/, '')}`);
        const files = await writeReport({
          db: a.db,
          runIds: a.run,
          outDir,
          excludeServers: a['exclude-server'],
          baseline: a.baseline,
          logX: a['log-x'],
          logY: a['log-y'],
          facet: a.facet,
        });
        process.stdout.write(`report written to ${outDir}/ (${files.length} files; open ${path.join(outDir, 'index.html')})\n`);
      },
    )
    .command(
      'compare',
      'delta table of per-address medians between two databases (A then B)',
      (y) => y.option('db', { type: 'string', array: true, demandOption: true }).option('out', { type: 'string' }),
      (a) => {
        if (a.db.length !== 2) throw new UserError(`compare takes exactly two --db, got ${a.db.length}`);
        const [dbA, dbB] = a.db;
        const text = compareMarkdown(compareDatabases(dbA, dbB), dbA, dbB);
        if (a.out) {
          prepareOutDir(a.out);
          writeOutput(a.out, 'compare.md', text);
        }
        process.stdout.write(text);
      },
    )
    .strict()
    .fail((msg, err) => {
      if (err) throw err;
      code = 2;
      throw new UserError(msg);
    })
    .help()
    .parseAsync();
  return code;
}

if (require.main === module) runCli(main);
