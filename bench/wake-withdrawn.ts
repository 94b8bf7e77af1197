/**
 * What a wake asked for and withdrawn costs (issue #41): the open model between batches at
 * thousands a second, with the engine's own wake clock (src/engine/wake-clock.ts). Each batch:
 * `work` µs of the engine's own (its answers coming in), then a block until the batch's time
 * (blockUntil 'late', as the driver sleeps to a batch), `gap` µs after the batch began.
 *
 *   withdrawn  a wake of the clock asked for at the start of the batch (what the driver did after
 *              every write with answers to come) and withdrawn once the work is done (the answers in)
 *   none       no wake asked for (what it does now when the answers usually come first)
 *
 * The process's CPU (both threads: the clock's worker is one) per batch, round by round in turn, and
 * the difference: what each wake asked for and withdrawn costs. Pin it to one CPU, as the engine
 * runs in the table:
 *
 *   taskset -c 1 npx tsx bench/wake-withdrawn.ts [--batches 3000] [--rounds 5] [--gap 500] [--work 50]
 */
import { blockUntil, wakeClockStarted, wakeNear } from '../src/engine/wake-clock';
import { flag } from './args';

const nowNs = () => Number(process.hrtime.bigint());

/** CPU µs per batch over `batches` batches, with or without a wake asked for and withdrawn in each. */
function batchesCpuUs(batches: number, gapNs: number, workNs: number, withdrawn: boolean): number {
  const before = process.cpuUsage();
  for (let i = 0; i < batches; i++) {
    const start = nowNs();
    const cancel = withdrawn ? wakeNear(start + gapNs, () => undefined) : undefined;
    while (nowNs() < start + workNs) {
      /* the engine's own work: the answers read */
    }
    cancel?.();
    blockUntil(start + gapNs, 'late');
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / batches;
}

async function main(): Promise<void> {
  const batches = Number(flag('batches', '3000'));
  const rounds = Number(flag('rounds', '5'));
  const gapNs = Number(flag('gap', '500')) * 1000;
  const workNs = Number(flag('work', '50')) * 1000;
  await wakeClockStarted(1000);
  // Compiled and the clock's hop estimated before anything is counted.
  batchesCpuUs(200, gapNs, workNs, true);
  batchesCpuUs(200, gapNs, workNs, false);
  console.log(`${batches} batches per figure, ${gapNs / 1000} µs apart, ${workNs / 1000} µs of work each; process CPU µs per batch`);
  console.log('round  withdrawn  none  difference');
  const diffs: number[] = [];
  for (let r = 1; r <= rounds; r++) {
    const [a, b] = r % 2 ? [true, false] : [false, true];
    const first = batchesCpuUs(batches, gapNs, workNs, a);
    const second = batchesCpuUs(batches, gapNs, workNs, b);
    const withdrawn = a ? first : second;
    const none = a ? second : first;
    diffs.push(withdrawn - none);
    console.log(`${String(r).padStart(5)}  ${withdrawn.toFixed(1).padStart(9)}  ${none.toFixed(1).padStart(4)}  ${(withdrawn - none).toFixed(1).padStart(10)}`);
  }
  diffs.sort((x, y) => x - y);
  console.log(`a wake asked for and withdrawn: ${diffs[Math.floor(diffs.length / 2)].toFixed(1)} µs of CPU (median of ${rounds} rounds; ${diffs[0].toFixed(1)}–${diffs[diffs.length - 1].toFixed(1)})`);
  process.exit(0);
}

void main();
