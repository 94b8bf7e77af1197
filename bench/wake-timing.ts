/**
 * How to wake at a send time: the ways an open-model generator can sleep until its next send,
 * each measured the same way in one run — how late it woke (lag p50 / p99 / max, µs) and what the
 * waiting cost in CPU (ms of process CPU per second of schedule) — at a few constant rates. No
 * network: only the waiting is measured, so the figures compare the strategies, not a server.
 *
 *   spin        a timer to 1 ms before the send, then event-loop turns until it is due (the engine
 *               until issue #19)
 *   timer       a timer alone (libuv's 1 ms granularity: it fires up to ~1 ms late)
 *   wait-async  Atomics.waitAsync with a fractional timeout on the main thread, then turns only for
 *               the last SPIN_US
 *   worker      a worker thread that owns the clock: Atomics.wait with a fractional timeout, then a
 *               message to the main thread
 *   worker+turns  the worker asked to wake early by its own usual hop and a margin, the rest in turns
 *   worker-early  the worker asked to wake a usual hop early, again if that was still well early; the
 *               last 20 µs in turns
 *   block       the calling thread blocked until the time (Atomics.wait, asked short by its usual
 *               oversleep, the last 30 µs in place; src/engine/wake-clock.ts's blockUntil): the
 *               engine's way when no answer is awaited, since nothing else runs meanwhile
 *   block-queued  the open model's send at low rates (src/engine/arrival-driver.ts): a block to
 *               QUEUE_AHEAD_NS before the send, not exact; 50 µs of work (the request's building);
 *               an exact block to the send
 *
 * Beside lag and CPU, `late` is the share of sends more than 0.1 ms late (the generator check's floor).
 * --only picks strategies (comma-separated).
 *
 *   npx tsx bench/wake-timing.ts [--seconds S] [--rates 50,400,2000] [--repeat N] [--only block,block-queued]
 */
import { Worker } from 'node:worker_threads';
import { blockUntil } from '../src/engine/wake-clock';
import { QUEUE_AHEAD_NS } from '../src/engine/arrival-driver';
import { NOISE_MS } from '../src/core/generator-check';
import { flag } from './args';

const SPIN_US = 50;
const nowNs = () => Number(process.hrtime.bigint());

type Sleep = (dueNs: number) => Promise<void>;

/** ES2024's Atomics.waitAsync (in Node since 16), which the project's TypeScript lib (ES2022) does not declare. */
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number, timeoutMs: number): { async: boolean; value: Promise<string> | string } }).waitAsync.bind(Atomics);

const turn = () => new Promise<void>((r) => setImmediate(r));

const strategies: Record<string, () => { sleep: Sleep; close(): void }> = {
  spin: () => ({
    sleep: async (dueNs) => {
      const waitMs = (dueNs - nowNs()) / 1e6;
      if (waitMs >= 2) await new Promise((r) => setTimeout(r, Math.floor(waitMs) - 1));
      while (nowNs() < dueNs) await turn();
    },
    close() {},
  }),
  timer: () => ({
    sleep: async (dueNs) => {
      while (nowNs() < dueNs) await new Promise((r) => setTimeout(r, Math.max(0, Math.floor((dueNs - nowNs()) / 1e6))));
    },
    close() {},
  }),
  'wait-async': () => {
    const cell = new Int32Array(new SharedArrayBuffer(4));
    return {
      sleep: async (dueNs) => {
        for (;;) {
          const waitNs = dueNs - nowNs();
          if (waitNs <= 0) return;
          if (waitNs <= SPIN_US * 1000) {
            await turn();
            continue;
          }
          const r = waitAsync(cell, 0, 0, (waitNs - SPIN_US * 1000) / 1e6);
          if (r.async) await r.value;
        }
      },
      close() {},
    };
  },
  worker: () => workerSleep(false),
  'worker+turns': () => workerSleep(true),
  'worker-early': () => workerSleep(false, true),
  block: () => ({
    sleep: async (dueNs) => {
      // Waits longer than a block may last go on a timer first, as the engine's driver does.
      const waitMs = (dueNs - nowNs()) / 1e6;
      if (waitMs > 25) await new Promise((r) => setTimeout(r, Math.floor(waitMs) - 2));
      blockUntil(dueNs);
    },
    close() {},
  }),
  'block-queued': () => ({
    sleep: async (dueNs) => {
      const waitMs = (dueNs - nowNs()) / 1e6;
      if (waitMs > 25) await new Promise((r) => setTimeout(r, Math.floor(waitMs) - 2));
      blockUntil(dueNs - QUEUE_AHEAD_NS, 'early');
      for (const until = nowNs() + 50_000; nowNs() < until; ) {
        /* the request's building */
      }
      blockUntil(dueNs, 'exact');
    },
    close() {},
  }),
};

/**
 * A worker thread that sleeps until the time in `due` and posts when it is reached. With `turns`,
 * it is asked to wake early by the hop it has been taking (a moving estimate of how late its
 * message arrives), and the rest is waited in event-loop turns: tens of µs, not a millisecond.
 */
function workerSleep(turns: boolean, early = false): { sleep: Sleep; close(): void } {
  {
    // The worker sleeps until the time in `due` (ns, as a float64) and posts when it is reached.
    const shared = new SharedArrayBuffer(16);
    const due = new Float64Array(shared, 0, 1);
    const bell = new Int32Array(shared, 8, 1);
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      const due = new Float64Array(workerData, 0, 1);
      const bell = new Int32Array(workerData, 8, 1);
      const now = () => Number(process.hrtime.bigint());
      for (;;) {
        const seen = Atomics.load(bell, 0);
        if (seen < 0) break;
        const wait = due[0] - now();
        if (due[0] > 0 && wait <= 0) { due[0] = 0; parentPort.postMessage(0); continue; }
        Atomics.wait(bell, 0, seen, due[0] > 0 ? wait / 1e6 : Infinity);
      }`;
    const worker = new Worker(code, { eval: true, workerData: shared });
    let wake: (() => void) | undefined;
    let asked = 0;
    let hopNs = 100_000;
    worker.on('message', () => {
      // A hop is capped: on a busy machine one late message must not make every later wait a spin.
      hopNs += (Math.min(250_000, Math.max(0, nowNs() - asked)) - hopNs) / 8;
      wake?.();
    });
    const hop = (dueNs: number) =>
      new Promise<void>((resolve) => {
        wake = resolve;
        asked = dueNs;
        due[0] = dueNs;
        Atomics.add(bell, 0, 1);
        Atomics.notify(bell, 0);
      });
    return {
      sleep: async (dueNs) => {
        if (early) {
          // Aimed a usual hop early; woken still well before the time, asked again; the last few µs in turns.
          while (dueNs - nowNs() > 20_000) await hop(Math.max(nowNs(), dueNs - hopNs));
          while (nowNs() < dueNs) await turn();
          return;
        }
        const lead = turns ? hopNs + SPIN_US * 1000 : 0;
        if (dueNs - lead > nowNs()) await hop(dueNs - lead);
        while (turns && nowNs() < dueNs) await turn();
      },
      close() {
        Atomics.store(bell, 0, -1);
        Atomics.notify(bell, 0);
        void worker.terminate();
      },
    };
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

async function measure(name: string, rate: number, seconds: number) {
  const s = strategies[name]();
  const lags: number[] = [];
  const stepNs = 1e9 / rate;
  const count = Math.floor(rate * seconds);
  await new Promise((r) => setTimeout(r, 50)); // the worker's start is not the schedule's
  const cpu0 = process.cpuUsage();
  const t0 = nowNs() + 5e6;
  for (let k = 0; k < count; k++) {
    const dueNs = t0 + k * stepNs;
    await s.sleep(dueNs);
    lags.push((nowNs() - dueNs) / 1000);
  }
  const cpu = process.cpuUsage(cpu0);
  s.close();
  lags.sort((a, b) => a - b);
  const late = lags.filter((us) => us > NOISE_MS * 1000).length / lags.length;
  return { p50: quantile(lags, 0.5), p99: quantile(lags, 0.99), max: lags[lags.length - 1], late, cpuMsPerS: (cpu.user + cpu.system) / 1000 / seconds };
}

async function main() {
  // A pending Atomics.waitAsync does not keep Node's event loop alive: this does.
  const alive = setInterval(() => undefined, 1 << 30);
  const seconds = Number(flag('seconds', '5'));
  const rates = flag('rates', '50,400,2000').split(',').map(Number);
  const repeat = Number(flag('repeat', '2'));
  const names = flag('only')?.split(',') ?? Object.keys(strategies);
  const unknown = names.filter((n) => !(n in strategies));
  if (unknown.length) {
    console.error(`--only: no strategy ${unknown.join(', ')} (there are ${Object.keys(strategies).join(', ')})`);
    process.exit(2);
  }
  console.log(`wake timing: ${seconds} s per cell, ${repeat} rounds, strategies in turn within each round`);
  console.log('strategy       rate/s  lag p50 µs  lag p99 µs  lag max µs  late %  CPU ms/s');
  for (let round = 0; round < repeat; round++) {
    for (const rate of rates) {
      for (const name of names) {
        const r = await measure(name, rate, seconds);
        console.log(`${name.padEnd(14)} ${String(rate).padStart(6)}  ${r.p50.toFixed(0).padStart(10)}  ${r.p99.toFixed(0).padStart(10)}  ${r.max.toFixed(0).padStart(10)}  ${(100 * r.late).toFixed(1).padStart(6)}  ${r.cpuMsPerS.toFixed(1).padStart(8)}`);
      }
    }
  }
  clearInterval(alive);
}

void main();
