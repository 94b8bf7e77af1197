/**
 * The resource sampler on a thread of its own: reading /proc and scraping metrics is the
 * generator's own work, and on the main thread its callbacks land while answers are awaited and
 * add to what is measured (issue #41). Here nothing of it runs on the main thread but taking the
 * rows, and that waits for a moment with nothing in flight (core/spare-time.ts): the rows queue on
 * a port the main thread does not listen to and are taken from it synchronously.
 */
import path from 'node:path';
import { MessageChannel, MessagePort, receiveMessageOnPort, Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { spareMoment } from '../core/spare-time';
import { ResourceSampler, type ResourceRow, type ResourceTarget, type SamplerOptions } from './sampler';

interface ThreadData {
  targets: ResourceTarget[];
  opts: SamplerOptions;
  rows: MessagePort;
}

/** The thread is up and its sampler made: a start is read at once. */
const READY = 'ready';
/** What the main thread tells the sampling thread: the first readings now, then one a period. */
const START = 'start';
/** Stop after a last reading. */
const STOP = 'stop';
/** The thread's answer once its last rows are on the port. */
const STOPPED = 'stopped';

/**
 * Made before the run, so the thread is up when it starts (`ready`: a thread takes a few hundred
 * ms to load): start() then takes the first readings at once, as the in-thread sampler did.
 */
export class SamplerThread {
  /** Resolves when the thread can start at once (or has failed: stop() says how). */
  readonly ready: Promise<void>;
  private readonly worker: Worker;
  private readonly exited: Promise<void>;
  private readonly rows: MessagePort;
  private timer: NodeJS.Timeout | undefined;
  private onRows: (rows: ResourceRow[]) => void = () => {};
  private failure: Error | undefined;

  constructor(
    targets: ResourceTarget[],
    private readonly opts: SamplerOptions = {},
  ) {
    const { port1, port2 } = new MessageChannel();
    this.rows = port1;
    const data: ThreadData = { targets, opts, rows: port2 };
    this.worker = new Worker(threadEntry(), { eval: true, workerData: data, transferList: [port2] });
    this.worker.on('error', (err) => (this.failure ??= err));
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    // Held (the process waits for it) only while it is awaited: getting ready, and stopping.
    this.ready = Promise.race([new Promise<void>((resolve) => this.worker.once('message', () => resolve())), this.exited]).then(() => void this.worker.unref());
  }

  /** The first readings now, then one every period, each to `onRows` in a moment with nothing in flight. */
  start(onRows: (rows: ResourceRow[]) => void): void {
    this.onRows = onRows;
    this.worker.postMessage(START);
    // Taken about as often as they come; the taking itself waits for a spare moment.
    this.timer = setInterval(() => void spareMoment().then(() => this.take()), this.opts.everyMs ?? 1_000);
    this.timer.unref();
  }

  /** Stops, after a last reading with the datadirs' final sizes, and takes every row left; a thread that failed throws here. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.worker.ref();
    const stopped = new Promise<void>((resolve) => this.worker.on('message', (m) => m === STOPPED && resolve()));
    this.worker.postMessage(STOP);
    try {
      await Promise.race([stopped, this.exited]);
    } finally {
      this.take();
      this.rows.close();
      await this.worker.terminate();
    }
    if (this.failure) throw this.failure;
  }

  private take(): void {
    for (let m = receiveMessageOnPort(this.rows); m; m = receiveMessageOnPort(this.rows)) this.onRows(m.message as ResourceRow[]);
  }
}

/** This file, in the thread; under tsx it is TypeScript, read through tsx's require hook there too. */
function threadEntry(): string {
  const hook = path.extname(__filename) === '.ts' ? `require(${JSON.stringify(require.resolve('tsx/cjs'))});` : '';
  return `${hook} require(${JSON.stringify(__filename)});`;
}

if (!isMainThread && (workerData as ThreadData | undefined)?.rows instanceof MessagePort) {
  const { targets, opts, rows } = workerData as ThreadData;
  const sampler = new ResourceSampler(targets, (r) => rows.postMessage(r), opts);
  let started = false;
  parentPort!.on('message', (m) => {
    if (m === START) {
      started = true;
      return sampler.start();
    }
    if (m !== STOP) return;
    // Stopped before a start: nothing was sampled, and nothing is to be.
    void (started ? sampler.stop() : Promise.resolve()).then(() => {
      parentPort!.postMessage(STOPPED);
      parentPort!.close();
    });
  });
  parentPort!.postMessage(READY);
}
