/**
 * `dataset build` from validated options: check that node and Electrum server agree, scan the
 * block range, count the candidates, select, write. Every finished step is journalled in the
 * checkpoint first, so an interrupt or failure loses at most the request in flight.
 */
import { NodeRpc, NodeRpcError } from '../node/rpc';
import { UserError } from '../core/user-error';
import { isElectrumError } from '../electrum/errors';
import type { BuildOptions } from './options';
import { createOutputDir, prepareOutput } from './options';
import { CountServer, openCountServer, tipOf } from './count-server';
import { checkResumable, checkSameChain, checkServerTip, nodeNetwork } from './preflight';
import { Checkpoint, CheckpointKey, Progress } from './checkpoint';
import { scanBlocks } from './scan';
import { countCandidates } from './count';
import { inTxRange, select } from './stratify';
import { writeDataset } from './output';
import type { DatasetLine } from './line';
import type { DatasetManifest } from './manifest';
import type { BuildEvents } from './events';

/** The build stopped on request; its checkpoint holds everything done so far. */
export class BuildInterrupted extends Error {
  constructor(readonly checkpointFile: string) {
    super(`interrupted: rerun the same command to resume from ${checkpointFile}`);
    this.name = 'BuildInterrupted';
  }
}

export interface BuildResult {
  manifest: DatasetManifest;
  resumed: boolean;
  scanMs: number;
  countMs: number;
}

export async function buildDataset(opts: BuildOptions, events: BuildEvents, signal?: AbortSignal): Promise<BuildResult> {
  prepareOutput(opts.out, opts.force);
  const rpc = new NodeRpc(opts.rpc);
  const node = rpc.describe();
  let server: CountServer | undefined;
  let checkpoint: Checkpoint | undefined;
  try {
    const network = await nodeNetwork(rpc, opts);
    server = await openCountServer(opts.countVia, { connections: opts.countConnections, timeoutMs: opts.countTimeoutMs, profile: opts.countProfile });
    await checkSameChain(rpc, server, network);
    const tip = await tipOf(server);
    await checkServerTip(rpc, server, tip, opts.to);

    const key: CheckpointKey = {
      node,
      network,
      from: opts.from,
      to: opts.to,
      countVia: server.label,
      minTxs: opts.selection.minTxs,
      maxTxs: opts.selection.maxTxs,
    };
    createOutputDir(opts.out);
    const opened = Checkpoint.open(opts.out.checkpoint, key);
    checkpoint = opened.checkpoint;
    const progress = opened.progress;
    if (opened.resumed) await checkResumable(rpc, checkpoint.file, progress, events);

    const scanStarted = Date.now();
    const journal = checkpoint;
    await scanBlocks(
      rpc,
      { from: opts.from, to: opts.to, network, concurrency: opts.scanConcurrency, signal },
      progress,
      (through, hash, added) => journal.recordScan(through, hash, added),
      events,
    );
    if (signal?.aborted) throw new BuildInterrupted(checkpoint.file);
    const scanMs = Date.now() - scanStarted;

    const countStarted = Date.now();
    await countPhase(server, progress, opts, journal, events, signal);
    if (signal?.aborted) throw new BuildInterrupted(checkpoint.file);
    const countMs = Date.now() - countStarted;

    const notes: string[] = [];
    const tipAfter = await tipOf(server);
    if (tipAfter.hash !== tip.hash) {
      const note = `the tip moved from ${tip.height} to ${tipAfter.height} while counting: lines counted late may include the newer blocks`;
      notes.push(note);
      events.emit('note', note);
    }

    const counted = [...progress.counts.values()];
    const lines = select(linesOf(progress), opts.selection);
    if (lines.length === 0) {
      throw new UserError(`no address funded in blocks ${opts.from}..${opts.to} matches the filters (${describeFilters(opts)}): nothing written`);
    }
    const manifest = writeDataset(opts.out, lines, {
      source: { node, countVia: server.label, countServer: server.software },
      network,
      range: { from: opts.from, to: opts.to },
      tip,
      filters: opts.selection,
      candidates: {
        scanned: progress.candidates.size,
        counted: counted.length,
        inRange: counted.filter((c) => c.txCount !== null && inTxRange(c.txCount, opts.selection)).length,
        historyTooLarge: counted.filter((c) => c.txCount === null).length,
      },
      parent: null,
      ...(notes.length > 0 ? { notes } : {}),
    });
    checkpoint.remove();
    return { manifest, resumed: opened.resumed, scanMs, countMs };
  } catch (err) {
    throw asUserError(err, node);
  } finally {
    checkpoint?.close();
    server?.pool.close();
    rpc.close();
  }
}

async function countPhase(server: CountServer, progress: Progress, opts: BuildOptions, journal: Checkpoint, events: BuildEvents, signal?: AbortSignal): Promise<void> {
  const needsCount = (sh: string): boolean => {
    const c = progress.counts.get(sh);
    return c === undefined || (c.txCount !== null && inTxRange(c.txCount, opts.selection) && c.detail === undefined);
  };
  const pending = [...progress.candidates.keys()].filter(needsCount);
  const total = progress.candidates.size;
  let kept = [...progress.counts.values()].filter((c) => c.detail !== undefined).length;
  let countedNow = 0;
  const tick = () => ({ phase: 'count' as const, done: total - pending.length + countedNow, total, info: { kept } });
  const started = Date.now();
  events.emit('start', tick());
  await countCandidates(server, pending, { connections: opts.countConnections, timeoutMs: opts.countTimeoutMs, range: opts.selection, signal }, (results) => {
    journal.recordCounts(results);
    for (const [sh, r] of results) {
      progress.counts.set(sh, r);
      if (r.detail) kept++;
    }
    countedNow += results.length;
    events.emit('progress', tick());
  });
  events.emit('end', { ...tick(), elapsedMs: Date.now() - started });
}

function linesOf(progress: Progress): DatasetLine[] {
  const lines: DatasetLine[] = [];
  for (const c of progress.candidates.values()) {
    const r = progress.counts.get(c.scripthash);
    if (!r?.detail || r.txCount === null) continue;
    lines.push({ address: c.address, scripthash: c.scripthash, type: c.type, txCount: r.txCount, ...r.detail });
  }
  return lines;
}

function describeFilters(opts: BuildOptions): string {
  const s = opts.selection;
  return [`--min-txs ${s.minTxs}`, s.maxTxs !== null ? `--max-txs ${s.maxTxs}` : '', s.types ? `--types ${s.types.join(',')}` : '']
    .filter(Boolean)
    .join(' ');
}

/** Node failures mid-build (a reorg, a dropped connection) are the user's to fix, not our bugs. */
function asUserError(err: unknown, node: string): unknown {
  if (err instanceof UserError || err instanceof BuildInterrupted) return err;
  if (err instanceof NodeRpcError) return new UserError(`node ${node}: ${err.message}`);
  if (isElectrumError(err)) return new UserError(`electrum server: ${err.message}`);
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code === 'string' || /no reply within/.test(String(e?.message))) return new UserError(`node ${node}: ${e.message}`);
  return err;
}
