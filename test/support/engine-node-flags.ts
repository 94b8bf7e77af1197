/**
 * Node's own options for a command run as its own process, as the launchers give them (the
 * launcher's own rule, bin/electrum-bench.js): a test of a command's process runs it as users do.
 */
import path from 'node:path';

const launcher = require(path.resolve(__dirname, '..', '..', 'bin', 'electrum-bench.js')) as { engineNodeFlags: (command: string) => string[] };

export const engineNodeFlags = launcher.engineNodeFlags;
