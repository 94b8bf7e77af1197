/**
 * When the bytes being handled now arrived on their socket, and our loop's active time then.
 *
 * A client library that reads and parses inside its own socket listener (undici in 'readable', `ws`
 * in 'data') finishes a reply there, after its parsing. A listener of ours placed before the
 * library's stamps each chunk as it arrives, so a reply that completes in that dispatch ends at its
 * last byte's arrival, as an Electrum line over TCP does: the library's reading of it is neither in
 * the latency nor in our loop's busy time during the call. A stamp lives for the one dispatch that
 * set it (cleared on the next tick); a reply that completes anywhere else takes the time it completes.
 */
export interface SocketArrival {
  ns: bigint;
  /** performance.eventLoopUtilization().active at the arrival, when the loop is measured. */
  active?: number;
}

let current: SocketArrival | null = null;
const clear = () => {
  current = null;
};
function stamp(): void {
  current = { ns: process.hrtime.bigint() };
  process.nextTick(clear);
}
// Apart from `stamp` so that the unmeasured path (a load's) never reads the loop's utilisation.
function stampWithLoop(): void {
  current = { ns: process.hrtime.bigint(), active: performance.eventLoopUtilization().active };
  process.nextTick(clear);
}

/** The socket listener that stamps each chunk: put it on before the library's own. */
export function arrivalStamper(measureLoop: boolean): () => void {
  return measureLoop ? stampWithLoop : stamp;
}

/** The arrival of the chunk being handled now; null outside a stamped socket's dispatch. */
export function socketArrival(): SocketArrival | null {
  return current;
}
