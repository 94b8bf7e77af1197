/**
 * The chain tip as the bench follows it over REST: Esplora has no subscriptions, so it is polled.
 */
import { EsploraRestClient, type RestClientOptions } from './rest-client';

/** The tip, polled over REST (no subscriptions there), on a client of its own. */
export class RestTipFollower {
  height: number | null = null;
  private timer: NodeJS.Timeout | undefined;

  private constructor(private readonly client: EsploraRestClient) {}

  static async start(opts: RestClientOptions, everyMs = 2_000): Promise<RestTipFollower> {
    const f = new RestTipFollower(new EsploraRestClient({ ...opts, maxSockets: 1, measureLoop: false }));
    const poll = async () => {
      try {
        f.height = await f.client.tipHeight();
      } catch {
        // A tip is context, not a measurement: the last one known stays.
      }
    };
    await poll();
    f.timer = setInterval(() => void poll(), everyMs);
    f.timer.unref();
    return f;
  }

  close(): void {
    clearInterval(this.timer);
    this.client.close();
  }
}
