/**
 * All talk from the adapter (and the lab's readiness checks) to btcd's own JSON-RPC.
 * btcd quirk: a request without a "jsonrpc" member gets HTTP 200 with an EMPTY body (it logs
 * "rpcversion '' is invalid"), so every request carries "jsonrpc":"1.0".
 * RPC errors come back as values ({result, error}); only transport failures throw.
 */
import http from 'node:http';
import { basicAuthHeader, type Credentials } from './credentials';

export interface RpcError {
  code: number;
  message: string;
}

export interface RpcOutcome {
  result: unknown;
  error: RpcError | null;
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** An RPC error raised by helper code; the JSON-RPC front end turns it back into a reply. */
export class RpcFailure extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
    this.name = 'RpcFailure';
  }
}

/** btcd did not answer at all (down, restarting, or replied with no JSON). */
export class BtcdUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BtcdUnavailable';
  }
}

export class BtcdClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  private readonly auth: string;
  private nextId = 1;

  constructor(
    private readonly host: string,
    private readonly port: number,
    creds: Credentials,
    private readonly timeoutMs = 60_000,
  ) {
    this.auth = basicAuthHeader(creds);
  }

  async call(method: string, params: unknown[] = []): Promise<RpcOutcome> {
    const reply = (await this.post({ jsonrpc: '1.0', id: this.nextId++, method, params })) as RpcOutcome;
    return { result: reply.result ?? null, error: reply.error ?? null };
  }

  /** Many calls in one HTTP request; outcomes in the order of `calls`. */
  async batch(calls: RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '1.0', id: first + i, method: c.method, params: c.params }));
    const replies = (await this.post(body)) as Array<RpcOutcome & { id: number }>;
    if (!Array.isArray(replies)) throw new BtcdUnavailable('btcd answered a batch with a non-array');
    const byId = new Map(replies.map((r) => [r.id, r]));
    return calls.map((c, i) => {
      const r = byId.get(first + i);
      if (!r) return { result: null, error: { code: -32603, message: `btcd sent no reply for ${c.method}` } };
      return { result: r.result ?? null, error: r.error ?? null };
    });
  }

  /** The result, or a thrown RpcFailure carrying btcd's error code. */
  async get<T>(method: string, params: unknown[] = []): Promise<T> {
    return unwrap<T>(await this.call(method, params));
  }

  /** Batch version of `get`: throws on the first error. */
  async getMany<T>(calls: RpcCall[]): Promise<T[]> {
    return (await this.batch(calls)).map((o) => unwrap<T>(o));
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: unknown): Promise<unknown> {
    const payload = Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: this.host,
          port: this.port,
          path: '/',
          method: 'POST',
          agent: this.agent,
          headers: { 'content-type': 'application/json', 'content-length': payload.length, authorization: this.auth },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => reject(new BtcdUnavailable(e.message)));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 401) return reject(new BtcdUnavailable('btcd rejected the lab credentials (HTTP 401)'));
            if (text.length === 0) return reject(new BtcdUnavailable(`btcd sent an empty reply (HTTP ${res.statusCode})`));
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new BtcdUnavailable(`btcd reply is not JSON (HTTP ${res.statusCode}): ${text.slice(0, 120)}`));
            }
          });
        },
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`no reply within ${this.timeoutMs} ms`)));
      req.on('error', (e) => reject(new BtcdUnavailable(`btcd at ${this.host}:${this.port}: ${e.message}`)));
      req.end(payload);
    });
  }
}

export function unwrap<T>(o: RpcOutcome): T {
  if (o.error) throw new RpcFailure(o.error.code, o.error.message);
  return o.result as T;
}
