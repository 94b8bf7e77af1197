/**
 * Signal handling in one place: the first SIGINT, SIGTERM or SIGHUP (a closed terminal) asks for a
 * clean stop (everything measured so far is kept); a second one exits at once, after writing what
 * is still buffered.
 */
const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export function onStopSignal(stop: (signal: NodeJS.Signals) => void, beforeForcedExit?: () => void): () => void {
  let seen = false;
  const handler = (signal: NodeJS.Signals) => {
    if (seen) {
      try {
        beforeForcedExit?.();
      } finally {
        process.stderr.write(`\n${signal} again: exiting now\n`);
        process.exit(130);
      }
    }
    seen = true;
    process.stderr.write(`\n${signal}: stopping, keeping everything measured so far\n`);
    stop(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, handler);
  return () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
  };
}
