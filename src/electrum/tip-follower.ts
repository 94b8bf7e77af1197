/**
 * Follows a server's chain tip on a connection of its own (blockchain.headers.subscribe), so each
 * sample can record the height the server was at when it answered. Kept off the measuring pool:
 * notifications must never land on a connection whose latency we are timing.
 */
import { ElectrumClient, ClientOptions } from './client';

export class TipFollower {
  height: number | null = null;
  private client: ElectrumClient | undefined;

  /** `opts.signal` aborts the start, including its first subscription, leaving a follower without a tip. */
  static async start(opts: ClientOptions): Promise<TipFollower> {
    const follower = new TipFollower();
    const onAbort = () => follower.close();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      follower.client = await ElectrumClient.connect({ ...opts, skipServerInfo: true });
      follower.client.on('notification', (method: string, params: unknown) => {
        if (method !== 'blockchain.headers.subscribe' || !Array.isArray(params)) return;
        const h = (params[0] as { height?: number })?.height;
        if (typeof h === 'number') follower.height = h;
      });
      const first = await follower.client.request<{ height: number }>('blockchain.headers.subscribe');
      follower.height = first.height;
    } catch {
      // A tip is context, not a measurement: without it samples carry a null height.
      follower.close();
    } finally {
      opts.signal?.removeEventListener('abort', onAbort);
    }
    return follower;
  }

  close(): void {
    this.client?.close();
    this.client = undefined;
  }
}
