/**
 * Signal handling in one place: the first SIGINT/SIGTERM asks for a clean stop (everything
 * measured so far is kept); a second one exits at once.
 */
export function onStopSignal(stop: (signal: NodeJS.Signals) => void): () => void {
  let seen = false;
  const handler = (signal: NodeJS.Signals) => {
    if (seen) {
      process.stderr.write(`\n${signal} again: exiting now\n`);
      process.exit(130);
    }
    seen = true;
    process.stderr.write(`\n${signal}: stopping, keeping everything measured so far\n`);
    stop(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
