/**
 * `npm run lab -- up|down|status|reset [--json] [--seed S] [--without esplora fulcrum prometheus] [--with electrumx@1.20.0]`
 * `npm run lab -- mine [N] [--pay ADDRESS ...] [--amount SATS]`
 * Progress goes to stderr; the result (status table or JSON) to stdout. Exit codes: 0 done / lab up,
 * 1 (status) lab not fully up, or a failure (one line naming its details file: runCli), 2 a problem
 * the user can fix (missing tool, lab already up).
 */
import yargs from 'yargs';
import { LAB_DEFAULT_SEED } from '../lab/config';
import { isLabServerName, LAB_OPTIONAL, LAB_SERVERS, type LabOptional } from '../lab/servers/registry';
import { parseLabVersion, versionProblems, type LabVersion } from '../lab/versions';
import { labDown, labInterruptUp, labMine, labStatus, labUp, type LabStatus } from '../lab/lab';
import { UserError } from '../core/user-error';
import { textTable } from '../core/text-table';
import { tasksetProblem } from '../core/cpu-set';
import { cpuOption } from './validate';
import { runCli } from './run-cli';

interface Args {
  json: boolean;
  seed: string;
  scale: number;
  without: LabOptional[];
  versions: LabVersion[];
  blocks: number;
  pay: string[];
  amount: number;
  cpus?: number[];
}

function progress(line: string): void {
  process.stderr.write(`[lab ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
}

/** A server's tip as the status table shows it: why not, when it has none; the node's, when they differ. */
function tipText(server: { tip: number | null; error?: string }, nodeTip: number | null): string {
  if (server.tip === null) return server.error ? `- (${server.error})` : '-';
  return `${server.tip}${nodeTip !== null && server.tip !== nodeTip ? ` (node ${nodeTip})` : ''}`;
}

function printStatus(s: LabStatus, json: boolean): void {
  if (json) {
    process.stdout.write(JSON.stringify(s, null, 2) + '\n');
    return;
  }
  const rows: string[][] = [['component', 'state', 'pid', 'endpoint', 'tip']];
  for (const c of s.components) {
    const state = c.running ? 'running' : c.expected ? 'STOPPED' : 'stopped';
    let endpoint = '';
    let tip = '';
    if (c.name === 'adapter') {
      endpoint = s.node.rpcUrl;
      tip = s.node.tip === null ? '-' : String(s.node.tip);
    } else if (isLabServerName(c.name)) {
      const e = s.electrum[c.name]!;
      endpoint = e.url;
      tip = tipText(e, s.node.tip);
    } else if (c.name === 'prometheus') {
      endpoint = s.prometheus?.url ?? '';
    } else {
      endpoint = '(behind the adapter)';
    }
    rows.push([c.name, state, c.pid === null ? '-' : String(c.pid), endpoint, tip]);
  }
  for (const v of s.versions) {
    rows.push([v.name, v.running ? 'running' : 'STOPPED', v.pid === null ? '-' : String(v.pid), v.url, tipText(v, s.node.tip)]);
  }
  const lines = [textTable(rows[0], rows.slice(1)), ''];
  lines.push(`lab:         ${s.up ? 'UP' : 'not up'}${s.seed ? ` (seed ${s.seed})` : ''}`);
  lines.push(`node RPC:    ${s.node.rpcUrl}  (credentials: ${s.node.cookieFile})`);
  for (const { name } of LAB_SERVERS) {
    const e = s.electrum[name];
    const tls = e?.running ? e.tls : undefined;
    if (!tls) continue;
    const tip = tls.tip === null ? (tls.error ? `, not answering: ${tls.error}` : '') : `, tip ${tls.tip}`;
    lines.push(`TLS:         ${name.padEnd(NAME_WIDTH)}${tls.url}  (--ca ${tls.caFile}${tip})`);
  }
  for (const { name, profile } of LAB_SERVERS) {
    const e = s.electrum[name];
    const ws = e?.running ? e.websocket : undefined;
    if (!ws) continue;
    const tips = [ws.ws, ws.wss].map((l) => (l.tip === null ? (l.error ? `not answering: ${l.error}` : 'no tip') : `tip ${l.tip}`));
    lines.push(`WebSocket:   ${name.padEnd(NAME_WIDTH)}${ws.ws.url} (${tips[0]}), ${ws.wss.url} (${tips[1]})  (--server ${name}-ws=${profile}@${ws.ws.url}; wss:// with --ca ${ws.wss.caFile})`);
  }
  for (const v of s.versions) lines.push(`version:     ${v.name}  ${v.url}  (--server ${v.name}: ${v.server} ${v.version} on the same chain)`);
  for (const { name, rest } of LAB_SERVERS) {
    const e = s.electrum[name];
    if (rest && e?.running && e.rest) lines.push(`REST:        ${name.padEnd(NAME_WIDTH)}${e.rest}  (--server ${rest.profile}@${e.rest})`);
  }
  if (s.prometheus) lines.push(`Prometheus:  ${s.prometheus.url}  (the servers' metrics; load --out prometheus-rw=${s.prometheus.remoteWrite} graphs a run beside them)`);
  lines.push(`dataset:     ${s.datasetPath}`);
  lines.push(`wallets:     ${s.walletsPath}`);
  if (s.changed) {
    lines.push(`CHANGED:     ${s.changed.blocks} blocks mined and ${s.changed.payments} payments made since the datasets were written: --verify would compare with stale figures; "npm run lab -- up" starts afresh`);
  }
  if (s.cpus) lines.push(`CPUs:        ${s.cpus} (every lab process; run the generator elsewhere: load --cpu)`);
  lines.push(`state dir:   ${s.stateDir}`);
  process.stdout.write(lines.join('\n') + '\n');
}

/** The TLS, WebSocket and REST lines' server column: the longest lab server name and a space. */
const NAME_WIDTH = Math.max(...LAB_SERVERS.map((s) => s.name.length)) + 1;

/** "ElectrumX, electrs, Esplora, Fulcrum and mempool's electrs" */
function serverTitles(): string {
  const titles = LAB_SERVERS.map((s) => s.title);
  return `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}

async function up(args: Args): Promise<number> {
  // Ctrl-C during `up` must not leave detached servers behind. `on`, not `once`: tsx relays the
  // signal a second time when the first was not acknowledged fast enough, and a second SIGINT with
  // no listener would exit before the servers are stopped. (If tsx still SIGKILLs this process, the
  // next `up` finds the unfinished start and cleans it up.)
  let stopping = false;
  const onSignal = () => {
    if (stopping) return;
    stopping = true;
    progress('interrupted; stopping what this `up` started');
    labInterruptUp().finally(() => process.exit(130));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const status = await labUp({ seed: args.seed, scale: args.scale, without: args.without, versions: args.versions, cpus: args.cpus, log: progress });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  printStatus(status, args.json);
  return status.up ? 0 : 1;
}

async function down(args: Args): Promise<number> {
  const outcome = await labDown();
  if (args.json) process.stdout.write(JSON.stringify(outcome, null, 2) + '\n');
  else for (const [name, what] of Object.entries(outcome)) process.stdout.write(`${name.padEnd(10)} ${what}\n`);
  return 0;
}

async function status(args: Args): Promise<number> {
  const s = await labStatus();
  printStatus(s, args.json);
  return s.up ? 0 : 1;
}

async function reset(args: Args): Promise<number> {
  await down({ ...args, json: false });
  return up(args);
}

/** Mines N blocks, after paying the given addresses if any, then waits for every server's tip. */
async function mine(args: Args): Promise<number> {
  if (!Number.isInteger(args.blocks) || args.blocks < 1 || args.blocks > 1000) throw new UserError(`mine: N must be an integer in 1..1000, got ${args.blocks}`);
  const { status } = await labMine({ blocks: args.blocks, pay: args.pay, amount: args.amount }, progress);
  printStatus(status, args.json);
  return status.up ? 0 : 1;
}

export async function main(commandLine: string[]): Promise<number> {
  let run: ((a: Args) => Promise<number>) | undefined;
  const argv = await yargs(commandLine)
    .scriptName('npm run lab --')
    .command('up', `install if needed, start btcd + adapter, generate the chain, start ${serverTitles()}, wait for their tips`, {}, () => { run = up; })
    .command('down', 'stop every lab process (by pid file)', {}, () => { run = down; })
    .command('status', "each component's state, endpoints and tips (exit 1 unless fully up)", {}, () => { run = status; })
    .command('reset', 'down, then up', {}, () => { run = reset; })
    .command('mine [blocks]', 'mine N blocks (default 1), paying --pay addresses first; waits for every server to reach the new tip', (y) => y.positional('blocks', { type: 'number', default: 1 }), () => { run = mine; })
    .option('pay', { type: 'string', array: true, default: [], describe: 'mine: regtest addresses to pay, in one transaction mined in the first block' })
    .option('amount', { type: 'number', default: 10_000, describe: 'mine: satoshis paid to each --pay address' })
    .option('json', { type: 'boolean', default: false, describe: 'print JSON instead of a table' })
    .option('seed', { type: 'string', default: LAB_DEFAULT_SEED, describe: 'chain generator seed (up, reset)' })
    .option('scale', { type: 'number', default: 1, describe: 'chain scale (up, reset): S × the addresses per history size, longer histories from 4 (10: 600 addresses, ~100 k transactions)' })
    .option('cpus', { type: 'string', describe: 'up, reset: run every lab process on these CPUs only (a taskset list: 0, 0-1), so `load --cpu` can keep the generator off them' })
    .option('with', {
      type: 'string',
      array: true,
      default: [],
      describe: 'up, reset: also run these servers in other versions on the same chain, e.g. electrumx@1.20.0 (named electrumx-1.20.0; a lab already up gains or loses just these)',
    })
    .option('without', {
      type: 'array',
      choices: [...LAB_OPTIONAL],
      default: [],
      describe: 'leave servers or Prometheus out (e.g. where Esplora or Fulcrum cannot be built)',
    })
    .demandCommand(1, 'name a command: up, down, status, reset or mine')
    .strict()
    .help()
    .parseAsync();
  const problems: string[] = [];
  const cpus = cpuOption('--cpus', argv.cpus, problems);
  const versions: LabVersion[] = [];
  for (const text of argv.with.map(String)) {
    const v = parseLabVersion(text);
    if (typeof v === 'string') problems.push(v);
    else versions.push(v);
  }
  problems.push(...versionProblems(versions));
  // The lab's servers start under taskset: its absence must be said before anything starts.
  const taskset = cpus ? tasksetProblem('--cpus') : undefined;
  if (taskset) problems.push(taskset);
  if (problems.length) throw new UserError(problems.join('; '));
  return run!({
    json: argv.json,
    seed: argv.seed,
    scale: argv.scale,
    without: argv.without as LabOptional[],
    versions,
    blocks: Number((argv as { blocks?: number }).blocks ?? 1),
    pay: argv.pay.map(String),
    amount: argv.amount,
    cpus,
  });
}

if (require.main === module) runCli(main, { exit: true });
