/**
 * One wallet synced from scratch against one server by one workload: time to synced (from before
 * the connect to the sync's last reply), every request, and what it found, checked against the
 * wallets file. With `hold`, the connection is handed back open, its subscriptions live.
 */
import type { ClientOptions } from '../electrum/client';
import { toElectrumError } from '../electrum/errors';
import type { ErrorCategory } from '../core/outcomes';
import type { WalletLine } from '../core/wallet-line';
import { isUserError } from '../core/user-error';
import { Findings, figuresOf, mismatches, type WalletFigures } from './findings';
import { WalletSession, type Notification, type RequestSample } from './session';
import type { Workload } from './workloads';

export interface SyncResult {
  wallet: WalletLine;
  status: 'ok' | ErrorCategory;
  error?: string;
  errorStep?: string;
  durationNs: bigint;
  samples: RequestSample[];
  figures?: WalletFigures;
  /** Differences from the wallets file (empty: verified; undefined: not checked). */
  mismatch?: string[];
  software?: string;
  protocol?: string;
  /** With `hold` and a successful sync: the open, subscribed session, and what it subscribed to. */
  session?: WalletSession;
  subscribed?: Set<string>;
}

export interface SyncOptions {
  connection: ClientOptions;
  verify: boolean;
  hold?: boolean;
  onNotification?: (n: Notification) => void;
}

export async function syncWallet(workload: Workload, wallet: WalletLine, o: SyncOptions): Promise<SyncResult> {
  const startNs = process.hrtime.bigint();
  let session: WalletSession | undefined;
  const found = new Findings();
  try {
    session = new WalletSession({ ...o.connection, ...workload.client }, workload.maxInFlight, startNs, o.onNotification);
    await session.open();
    await workload.sync(session, wallet, found);
    const durationNs = process.hrtime.bigint() - startNs;
    const scripts = new Set([...wallet.chains.receive, ...wallet.chains.change].map((s) => s.scripthash));
    const figures = figuresOf(found, scripts);
    const missing = [...found.heights().keys()].filter((t) => !found.rawTxs.has(t)).length;
    const result: SyncResult = {
      wallet,
      status: 'ok',
      durationNs,
      samples: session.samples,
      figures,
      mismatch: o.verify ? mismatches(wallet, figures, missing, { workload: workload.name, calls: callsPerMethod(session.samples) }) : undefined,
      software: session.software,
      protocol: session.protocol,
    };
    if (o.hold && workload.subscribes) {
      result.session = session;
      result.subscribed = found.subscribed;
    }
    else session.close();
    return result;
  } catch (err) {
    const durationNs = process.hrtime.bigint() - startNs;
    session?.close();
    if (isUserError(err)) throw err;
    const e = toElectrumError(err);
    const samples = session?.samples ?? [];
    const failedAt = [...samples].reverse().find((s) => s.outcome !== 'ok');
    // A server that answered the handshake is named with the run even when every sync of it failed.
    const server = session?.software ? { software: session.software, protocol: session.protocol } : {};
    return { wallet, status: e.category, error: e.message, errorStep: failedAt?.step ?? 'handshake', durationNs, samples, ...server };
  }
}

/** Calls per method of a sync (a batch counts each call in it). */
function callsPerMethod(samples: RequestSample[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) out.set(s.method, (out.get(s.method) ?? 0) + s.items);
  return out;
}

/** A sync as the store keeps it. */
export function syncRecord(serverId: number, r: SyncResult, pass: number, warmup: boolean, extra: { intendedMs?: number; lagMs?: number } = {}) {
  return {
    serverId,
    wallet: r.wallet.wallet,
    pass,
    warmup,
    scripts: r.wallet.chains.receive.length + r.wallet.chains.change.length,
    expectedTxs: r.wallet.expected.txCount,
    ...extra,
    durationNs: r.durationNs,
    status: r.status,
    error: r.error,
    errorStep: r.errorStep,
    found: r.figures ? { txs: r.figures.txCount, confirmed: r.figures.balance.confirmed, unconfirmed: r.figures.balance.unconfirmed } : undefined,
    mismatch: r.mismatch,
    samples: r.samples,
  };
}
