/**
 * Node's own options for a command run as its own process, as both launchers give them
 * (bin/engine-node-flags.json): a test of a command's process runs it as users do.
 */
import ENGINE from '../../bin/engine-node-flags.json';

export function engineNodeFlags(command: string): string[] {
  return ENGINE.commands.includes(command) ? ENGINE.flags : [];
}
