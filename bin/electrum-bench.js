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
const child = spawn(process.execPath, ['--import', loader, path.join(root, 'src', 'cli', `${command}.ts`), ...rest], {
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
