/**
 * One wallet's connection as a workload drives it: every request (single or a JSON batch) goes
 * through here, waits for a slot when the wallet's in-flight cap is reached, and becomes a sample
 * tagged with the sync step it belongs to. Errors are recorded before they are rethrown, so a
 * failed sync still shows which step failed and what it had cost until then.
 */
import { ElectrumClient, type BatchItem, type ClientOptions } from '../electrum/client';
import { ElectrumError, toElectrumError } from '../electrum/errors';
import type { RequestSample, SyncStep } from '../core/sync-steps';
import { Slots } from '../core/slots';
import { sleepUntil } from '../engine/wake-clock';

export { SYNC_STEPS, type SyncStep, type RequestSample } from '../core/sync-steps';

export interface Notification {
  method: string;
  params: unknown;
  atNs: bigint;
}

export class WalletSession {
  readonly samples: RequestSample[] = [];
  protocol = '';
  software = '';
  /** Connections opened again after the server closed one (or a timeout left it out of step). */
  reconnects = 0;
  private readonly slots: Slots;
  private client!: ElectrumClient;

  constructor(
    private readonly opts: ClientOptions,
    readonly maxInFlight: number,
    readonly startNs: bigint,
    private readonly onNotification?: (n: Notification) => void,
    /** How a connection is opened: a held wallet's way back goes through its server's shared reconnect attempts. */
    private readonly dial: (opts: ClientOptions) => Promise<ElectrumClient> = (o) => ElectrumClient.connect(o),
  ) {
    this.slots = new Slots(maxInFlight);
  }

  /** Connects and negotiates (server.version): the sync's first sample. */
  open(): Promise<void> {
    return this.connect();
  }

  get connection(): ElectrumClient {
    return this.client;
  }

  /** A new connection in place of one closed, or left out of step by a timeout (`optional` in workloads/workload.ts). */
  async reconnect(): Promise<void> {
    this.reconnects++;
    this.client.close();
    await this.connect();
  }

  close(): void {
    this.client?.close();
  }

  /**
   * The real wallet's own work at this point of its sync (deriving the scripts it asks about
   * next, say), which it spends CPU on between an answer and its next request: a pause of that
   * length here, so the server sees the same silence while the generator spends no CPU imitating
   * a client's.
   */
  ownWork(ns: number): Promise<void> {
    return sleepUntil(Number(process.hrtime.bigint()) + ns);
  }

  async call<T = unknown>(step: SyncStep, method: string, params: unknown[] = []): Promise<T> {
    await this.slots.take();
    const started = process.hrtime.bigint();
    try {
      const out = await this.client.call<T>(method, params);
      this.record({ step, method, items: 1, latencyNs: out.latencyNs, offsetNs: started - this.startNs, bytes: out.responseBytes, outcome: 'ok' });
      return out.result;
    } catch (err) {
      throw this.failed(step, method, 1, started, err);
    } finally {
      this.slots.give();
    }
  }

  /** Calls of one method in one JSON array (or as lines written at once); each item succeeds or fails on its own. */
  async batch<T = unknown>(step: SyncStep, method: string, paramsList: unknown[][], framing: 'array' | 'lines' = 'array'): Promise<BatchItem<T>[]> {
    await this.slots.take();
    const started = process.hrtime.bigint();
    try {
      const out = await this.client.batch<T>(paramsList.map((params) => ({ method, params })), undefined, framing);
      const failed = out.items.find((i): i is { ok: false; error: ElectrumError } => !i.ok);
      this.record({
        step,
        method,
        items: paramsList.length,
        latencyNs: out.latencyNs,
        offsetNs: started - this.startNs,
        bytes: out.responseBytes,
        outcome: failed ? failed.error.category : 'ok',
        ...(failed ? { error: failed.error.message } : {}),
      });
      return out.items;
    } catch (err) {
      throw this.failed(step, method, paramsList.length, started, err);
    } finally {
      this.slots.give();
    }
  }

  private async connect(): Promise<void> {
    const started = process.hrtime.bigint();
    // The connect and server.version: the workloads ask the rest themselves.
    const method = 'server.version';
    try {
      this.client = await this.dial({ ...this.opts, skipServerInfo: true });
    } catch (err) {
      throw this.failed('handshake', method, 1, started, err);
    }
    this.record({ step: 'handshake', method, items: 1, latencyNs: process.hrtime.bigint() - started, offsetNs: started - this.startNs, bytes: 0, outcome: 'ok' });
    this.protocol = this.client.server.protocol;
    this.software = this.client.server.software;
    const listener = this.onNotification;
    if (listener) this.client.on('notification', (method: string, params: unknown) => listener({ method, params, atNs: process.hrtime.bigint() }));
  }

  private failed(step: SyncStep, method: string, items: number, started: bigint, err: unknown): ElectrumError {
    const e = toElectrumError(err);
    this.record({ step, method, items, latencyNs: process.hrtime.bigint() - started, offsetNs: started - this.startNs, bytes: 0, outcome: e.category, error: e.message });
    return e;
  }

  private record(s: RequestSample): void {
    this.samples.push(s);
  }
}
