/**
 * Signal handling in one place: the first SIGINT, SIGTERM or SIGHUP (a closed terminal) asks for a
 * clean stop (everything measured so far is kept); a second one exits at once, after writing what
 * is still buffered (and, as after any early end, removing what it claimed or created and left empty).
 *
 * A signal can reach us through several doors at once: `kill -TERM -PGID` hits npm, tsx and us,
 * and npm and tsx each pass it on, each within a few milliseconds. Copies of the same signal within
 * DUPLICATE_MS of the first are that one request, not an impatient second one (a person's second
 * Ctrl-C, or a script's second kill, comes far later).
 */
import { stoppedCode } from './exit-code';
import { leaveNothingHalfWritten } from './cleanup';

const STOP_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
const DUPLICATE_MS = 40;

/** Every handler installed here and not yet removed: a command run in process lets go of them all at its end. */
const installed = new Set<() => void>();

function install(handler: (signal: NodeJS.Signals) => void): () => void {
  for (const s of STOP_SIGNALS) process.on(s, handler);
  const remove = () => {
    for (const s of STOP_SIGNALS) process.off(s, handler);
    installed.delete(remove);
  };
  installed.add(remove);
  return remove;
}

/**
 * Removes every handler still installed. A process ends with its command and needs none of this;
 * a command run in process (a test) leaves the process's signals as it found them.
 */
export function releaseSignalHandlers(): void {
  for (const remove of [...installed]) remove();
}

export function onStopSignal(stop: (signal: NodeJS.Signals) => void, beforeForcedExit?: () => void): () => void {
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (first) {
      if (signal === first.signal && Date.now() - first.at < DUPLICATE_MS) return;
      try {
        beforeForcedExit?.();
      } finally {
        // The run's own ending will not come: what it would have released is released here.
        leaveNothingHalfWritten();
        process.stderr.write(`\n${signal} again: exiting now\n`);
        process.exit(stoppedCode(signal));
      }
    }
    first = { signal, at: Date.now() };
    process.stderr.write(`\n${signal}: stopping, keeping everything measured so far\n`);
    stop(signal);
  };
  return install(handler);
}

/**
 * While a command connects, before it has written anything: a stop ends it at once, saying so
 * (`cleanup` removes what its claims made). Returns the function that hands over to onStopSignal.
 */
export function onSignalBeforeStart(cleanup: () => void): () => void {
  return exitOnSignal(cleanup, (signal) => `${signal} while connecting: stopped before the first request; nothing was written`);
}

/**
 * A command that only reads (report): there is nothing to keep, so a stop ends it at once, after
 * `cleanup` (read-only opens leave nothing beside the database), saying what `left` is.
 */
export function onSignalWhileReading(cleanup: () => void, left: string): () => void {
  return exitOnSignal(cleanup, (signal) => `${signal}: stopped; ${left}`);
}

function exitOnSignal(cleanup: () => void, says: (signal: NodeJS.Signals) => string): () => void {
  const handler = (signal: NodeJS.Signals) => {
    try {
      cleanup();
    } finally {
      process.stderr.write(`electrum-bench: ${says(signal)}\n`);
      process.exit(stoppedCode(signal));
    }
  };
  return install(handler);
}
