#!/usr/bin/env node
// `electrum-bench <command> [options]`: runs src/cli/<command>.ts through tsx, as `npm run <command>` does.
// The launcher is only a doorway: signals go on to the command (so Ctrl-C, SIGTERM and SIGHUP stop
// it cleanly instead of orphaning it), and the command's exit code is ours.
'use strict';
const path = require('node:path');
const { spawn } = require('node:child_process');
const os = require('node:os');
const { pathToFileURL } = require('node:url');

const COMMANDS = ['lab', 'dataset', 'bench', 'load', 'report', 'index-bench', 'cluster', 'limits'];
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'];
// Node's own options for the commands that run the engine, the same as package.json's scripts give
// them (test/unit/bin/electrum-bench.test.ts holds both to bin/engine-node-flags.json). The old
// generation's first limit at 128 MB: with its limit at about twice a live old generation of
// 15-30 MB, V8 started marking again right after each collection (as its traces read, whenever the
// room left under the limit was less than a full young generation): a bench of the lab's servers
// had a full collection every 0.3 s, 2-7 ms each, in the middle of awaited replies
// (docs/findings/2026-11-29-gc-and-the-first-seconds.md). No memory reducer: from 8 s after start
// it runs full collections of any thread's heap it finds idle, tsx's loader thread's among them
// (3-10 ms each, on the core the generator may be on), and a run's own heap is never idle enough
// to need it (the same page, section 4).
const ENGINE = require('./engine-node-flags.json');

/** Node's own options for `command`: the engine's for the commands that run it, none for the others. */
function engineNodeFlags(command) {
  return ENGINE.commands.includes(command) ? ENGINE.flags : [];
}

/** Node's arguments for `command` run with `rest`: its options, tsx's loader, the command's module. */
function nodeArgs(command, rest, root, loader) {
  return [...engineNodeFlags(command), '--import', loader, path.join(root, 'src', 'cli', `${command}.ts`), ...rest];
}
module.exports = { engineNodeFlags, nodeArgs };
if (require.main !== module) return;

const [command, ...rest] = process.argv.slice(2);
if (!COMMANDS.includes(command)) {
  process.stderr.write(`usage: electrum-bench <${COMMANDS.join('|')}> [options]   (--help after a command for its options)\n`);
  process.exit(command === undefined || command === '--help' ? 0 : 2);
}
const root = path.resolve(__dirname, '..');
// tsx as a loader inside one node process (not tsx's own CLI, a second process that relays only
// SIGINT and SIGTERM): the command is the process we signal.
const loader = pathToFileURL(path.join(path.dirname(require.resolve('tsx/package.json', { paths: [root] })), 'dist', 'loader.mjs')).href;
// In a process group of its own, so a terminal's Ctrl-C reaches it once, through us, not twice
// (once from the terminal and once forwarded, which it would take for an impatient second Ctrl-C).
const child = spawn(process.execPath, nodeArgs(command, rest, root, loader), {
  stdio: 'inherit',
  detached: true,
});
for (const signal of FORWARDED) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  });
}
child.on('error', (err) => {
  process.stderr.write(`electrum-bench: cannot start ${command}: ${err.message}\n`);
  process.exit(1);
});
child.on('exit', (code, signal) => {
  if (signal) process.exit(128 + (os.constants.signals[signal] ?? 0));
  process.exit(code ?? 1);
});
