#!/usr/bin/env node
// `electrum-bench <command> [options]`: runs src/cli/<command>.ts through tsx, as `npm run <command>` does.
'use strict';
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const COMMANDS = ['lab', 'dataset', 'bench', 'report'];
const [command, ...rest] = process.argv.slice(2);
if (!COMMANDS.includes(command)) {
  process.stderr.write(`usage: electrum-bench <${COMMANDS.join('|')}> [options]   (--help after a command for its options)\n`);
  process.exit(command === undefined || command === '--help' ? 0 : 2);
}
const root = path.resolve(__dirname, '..');
const tsx = require.resolve('tsx/cli', { paths: [root] });
const r = spawnSync(process.execPath, [tsx, path.join(root, 'src', 'cli', `${command}.ts`), ...rest], { stdio: 'inherit' });
process.exit(r.status === null ? 1 : r.status);
