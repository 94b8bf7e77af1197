/**
 * The one JSON-RPC transport to a bitcoind-compatible node (Bitcoin Core, btcd, or btcd behind the
 * lab's adapter): keep-alive HTTP, basic auth from a URL, user/password or cookie file, batches,
 * and the node's dialect normalised once, here, so every caller sees Bitcoin Core's shapes.
 * RPC errors are values ({result, error}); only a failed exchange throws, as a TransportError whose
 * kind lets each caller choose its own wording (NodeRpc for the CLI, BtcdClient for the adapter).
 * Credentials stay inside this object: `describe()` gives the URL without them.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { UserError } from '../core/user-error';

export interface NodeEndpoint {
  url: string; // http(s)://host:port, may carry user:pass@
  user?: string;
  password?: string;
  cookieFile?: string;
}

export interface TransportOptions extends NodeEndpoint {
  timeoutMs?: number;
  /**
   * btcd answers a request without a "jsonrpc" member with HTTP 200 and an empty body, so one is
   * always sent; "1.0" makes btcd and Core reply with both `result` and `error`, as the adapter
   * passes them on.
   */
  jsonrpc?: '1.0' | '2.0';
  maxSockets?: number;
}

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
  params?: unknown[];
}

export type TransportFailure = 'unreachable' | 'credentials' | 'bad-reply' | 'io';

/** The exchange itself failed: nothing to read, wrong credentials, or a reply that is not JSON-RPC. */
export class TransportError extends Error {
  constructor(
    readonly kind: TransportFailure,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** JSON-RPC "internal error": a batch reply without an entry for one of its calls. */
export const MISSING_REPLY = -32603;

/**
 * Reshapes a node's result into Bitcoin Core's shape. btcd (rpcserverhelp.go) lists a verbose
 * block's transactions under `rawtx` where Core has `tx`; key order is kept, since the adapter
 * serves the object on to Electrum servers.
 */
export function normaliseResult(method: string, result: unknown): unknown {
  if (method !== 'getblock' || typeof result !== 'object' || result === null || Array.isArray(result)) return result;
  const block = result as Record<string, unknown>;
  if (!('rawtx' in block) || 'tx' in block) return result;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(block)) out[k === 'rawtx' ? 'tx' : k] = v;
  return out;
}

interface Reply {
  id?: unknown;
  result?: unknown;
  error?: RpcError | null;
}

export class NodeTransport {
  private readonly target: URL;
  private readonly authHeader: string | undefined;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private readonly version: '1.0' | '2.0';
  private nextId = 1;

  constructor(opts: TransportOptions) {
    const url = parseNodeUrl(opts.url);
    const { user, password } = credentialsOf(url, opts);
    url.username = '';
    url.password = '';
    this.target = url;
    this.authHeader = user ? 'Basic ' + Buffer.from(`${user}:${password ?? ''}`).toString('base64') : undefined;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.version = opts.jsonrpc ?? '2.0';
    const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: opts.maxSockets ?? 16 });
  }

  /** The node's URL without credentials: safe for manifests, logs and error messages. */
  describe(): string {
    return this.target.toString().replace(/\/$/, '');
  }

  async call(method: string, params: unknown[] = []): Promise<RpcOutcome> {
    const reply = await this.post({ jsonrpc: this.version, id: this.nextId++, method, params }, method);
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) {
      throw new TransportError('bad-reply', `${method}: reply is not a JSON-RPC object`);
    }
    return outcomeOf(method, reply as Reply);
  }

  /** One HTTP request carrying many calls; outcomes come back in the order of `calls`. */
  async batch(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: this.version, id: first + i, method: c.method, params: c.params ?? [] }));
    const replies = await this.post(body, `${calls[0].method} (batch)`);
    if (!Array.isArray(replies)) throw new TransportError('bad-reply', `${calls[0].method} (batch): reply is not an array`);
    const byId = new Map<unknown, Reply>((replies as Reply[]).map((r) => [r?.id, r]));
    return calls.map((c, i) => {
      const r = byId.get(first + i);
      return r ? outcomeOf(c.method, r) : { result: null, error: { code: MISSING_REPLY, message: `no reply for ${c.method} in the batch` } };
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private post(body: unknown, what: string): Promise<unknown> {
    const payload = Buffer.from(JSON.stringify(body));
    const mod = this.target.protocol === 'https:' ? https : http;
    return new Promise((resolve, reject) => {
      const req = mod.request(
        this.target,
        {
          method: 'POST',
          agent: this.agent,
          headers: {
            'content-type': 'application/json',
            'content-length': payload.length,
            ...(this.authHeader ? { authorization: this.authHeader } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) => reject(new TransportError('io', `${what}: ${e.message}`)));
          res.on('end', () => {
            const status = res.statusCode;
            const text = Buffer.concat(chunks).toString('utf8');
            if (status === 401 || status === 403) {
              reject(new TransportError('credentials', `node ${this.describe()}: wrong RPC credentials (HTTP ${status})`, status));
            } else if (text.length === 0) {
              reject(new TransportError('bad-reply', `${what}: empty reply (HTTP ${status})`, status));
            } else {
              try {
                resolve(JSON.parse(text));
              } catch {
                reject(new TransportError('bad-reply', `${what}: reply is not JSON (HTTP ${status}): ${text.slice(0, 120)}`, status));
              }
            }
          });
        },
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`no reply within ${this.timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EHOSTUNREACH') {
          reject(new TransportError('unreachable', `node ${this.describe()} is unreachable (${err.code})`));
        } else reject(new TransportError('io', `node ${this.describe()}: ${what}: ${err.message}`));
      });
      req.end(payload);
    });
  }
}

function outcomeOf(method: string, r: Reply): RpcOutcome {
  const error = r.error ?? null;
  return { result: error ? (r.result ?? null) : normaliseResult(method, r.result ?? null), error };
}

function parseNodeUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UserError(`--rpc: not a URL: ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UserError(`--rpc: expected an http:// or https:// URL, got ${url.protocol}`);
  }
  return url;
}

/** A cookie file wins: a node rewrites it at every start, so it is fresher than any flag. */
function credentialsOf(url: URL, opts: NodeEndpoint): { user?: string; password?: string } {
  if (opts.cookieFile) {
    let cookie: string;
    try {
      cookie = fs.readFileSync(opts.cookieFile, 'utf8').trim();
    } catch (err) {
      throw new UserError(`--rpc-cookie: cannot read ${opts.cookieFile}: ${(err as Error).message}`);
    }
    const colon = cookie.indexOf(':');
    if (colon < 0) throw new UserError(`--rpc-cookie: ${opts.cookieFile} is not a user:password cookie`);
    return { user: cookie.slice(0, colon), password: cookie.slice(colon + 1) };
  }
  return { user: decodeURIComponent(url.username) || opts.user, password: decodeURIComponent(url.password) || opts.password };
}
