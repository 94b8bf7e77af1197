/**
 * Requests of the load's mix as a runner's units: one connection set per server through its
 * transport (src/transports/registry.ts), opened before the schedule, every request pipelined on
 * it (request.ts). A closed model's users each wait for their own answer, so its pipelines are
 * unbounded.
 */
import { PROFILES } from '../../servers/profiles';
import { targetUrl, type ServerTarget } from '../../servers/targets';
import type { DatasetLine } from '../../core/dataset-line';
import type { Mix } from '../../core/load-types';
import type { MethodName } from '../../core/methods';
import { transportOf } from '../../transports/registry';
import type { ConnectionOptions } from '../../transports/transport';
import type { LoadConnections } from '../../transports/connections';
import { UnitsNotOpened, type UnitSource } from '../unit-source';
import { requestIteration } from './request';
import { RequestPicker } from './requests';

/** How long requests still in flight at the schedule's end may take to answer, at least (beyond that they time out). */
const DRAIN_GRACE_MS = 1500;

/** How long after a set of connections failed to open one connection is asked for. */
const PROBE_AFTER_MS = 500;

/** Requests, in the generator check's words. */
export const REQUEST_WORDS: UnitSource['words'] = { units: 'requests', late: 'went out late (scheduling lag)' };

export interface RequestUnitsOptions extends ConnectionOptions {
  lines: DatasetLine[];
  mix: Mix;
  /** The picker's seed: one sequence of requests per source, continued by every segment it serves (an interleaved run's turns). */
  seed: string;
  /** A closed model: every user waits for its own answer, so no pipeline limit applies. */
  closed: boolean;
}

export function requestUnits(target: ServerTarget, o: RequestUnitsOptions): UnitSource<MethodName> {
  const conns = transportOf(target).openConnections(target, { ...o, pipeline: o.closed ? Number.MAX_SAFE_INTEGER : o.pipeline });
  const picker = new RequestPicker(o.lines, o.mix, o.seed);
  let closed = false;
  // The one connection asked for after the set failed to open; a stop closes it too.
  let probe: LoadConnections | undefined;
  /** Whether the server takes a single connection of the run's kind, asked a moment after the set closed. */
  const takesOne = async (): Promise<boolean> => {
    // A per-address cap counts our closed sockets out as it reads their ends: asked at once, it may
    // still count them and refuse, which would read as a server that went down.
    await new Promise((resolve) => setTimeout(resolve, PROBE_AFTER_MS));
    if (closed) return false;
    probe = transportOf(target).openConnections(target, { ...o, connections: 1 });
    try {
      await probe.open();
      return true;
    } catch {
      return false;
    } finally {
      probe.close();
    }
  };
  return {
    async open() {
      try {
        await conns.open();
      } catch (err) {
        // E.g. a server that caps connections per IP below --connections (see --source-addresses),
        // which still takes one; or a server that went down, which takes none. A stop asked for
        // meanwhile asks nothing more.
        const message = `server ${target.name} (${targetUrl(target)}): cannot open ${o.connections} connections: ${(err as Error).message}`;
        throw new UnitsNotOpened(message, !closed && !(await takesOne()) && !closed);
      }
    },
    get server() {
      return conns.server ?? null;
    },
    iteration: (sink, clock) =>
      requestIteration({ conns, sink, picker, profile: PROFILES[target.profile], timeoutMs: o.timeoutMs, clock }),
    get inFlight() {
      return conns.inFlight;
    },
    drainMs: Math.max(DRAIN_GRACE_MS, o.timeoutMs + 200),
    close: () => {
      closed = true;
      conns.close();
      probe?.close();
    },
    get refused() {
      return conns.refused;
    },
    get firstRefusedAtMs() {
      return conns.firstRefusedAtMs;
    },
    lateReplies: () => conns.lateReplies(),
    // A request ends as an outcome, whatever happens to it.
    failure: undefined,
    words: REQUEST_WORDS,
  };
}
