/**
 * How work is paced. A scheduler pulls tasks and runs them; it knows nothing about Electrum,
 * databases or terminals. A new load shape (an open-model arrival rate, say) is a new file here.
 */
export interface Scheduler {
  readonly name: string;
  /** Runs tasks until the iterator ends or `stopping()` turns true; resolves when none is in flight. */
  run<T>(tasks: Iterator<T>, exec: (task: T) => Promise<void>, stopping: () => boolean): Promise<void>;
}
