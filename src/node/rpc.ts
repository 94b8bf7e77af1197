/**
 * The one module that talks to a bitcoind-compatible node over JSON-RPC (Bitcoin Core, or btcd
 * behind the lab's dialect adapter). Keep-alive HTTP, basic auth from a user/password or a cookie
 * file, and JSON-RPC batches. Credentials stay inside this object: `describe()` gives a URL
 * without them for manifests, logs and errors.
 */
import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import { UserError } from '../user-error';

export interface NodeRpcOptions {
  url: string; // http://host:port, may carry user:pass@
  user?: string;
  password?: string;
  cookieFile?: string;
  timeoutMs?: number;
}

export class NodeRpcError extends Error {
  constructor(readonly code: number, message: string, readonly method: string) {
    super(`${method}: ${message} (code ${code})`);
    this.name = 'NodeRpcError';
  }
}

interface RpcReply {
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string } | null;
}

export class NodeRpc {
  private readonly target: URL;
  private readonly authHeader: string | undefined;
  private readonly agent: http.Agent;
  private readonly timeoutMs: number;
  private nextId = 1;

  constructor(opts: NodeRpcOptions) {
    let url: URL;
    try {
      url = new URL(opts.url);
    } catch {
      throw new UserError(`--rpc: not a URL: ${JSON.stringify(opts.url)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new UserError(`--rpc: expected an http:// or https:// URL, got ${url.protocol}`);
    }
    let user = decodeURIComponent(url.username) || opts.user;
    let password = decodeURIComponent(url.password) || opts.password;
    if (opts.cookieFile) {
      let cookie: string;
      try {
        cookie = fs.readFileSync(opts.cookieFile, 'utf8').trim();
      } catch (err) {
        throw new UserError(`--rpc-cookie: cannot read ${opts.cookieFile}: ${(err as Error).message}`);
      }
      const colon = cookie.indexOf(':');
      if (colon < 0) throw new UserError(`--rpc-cookie: ${opts.cookieFile} is not a user:password cookie`);
      user = cookie.slice(0, colon);
      password = cookie.slice(colon + 1);
    }
    url.username = '';
    url.password = '';
    this.target = url;
    this.authHeader =
      user !== undefined && user !== '' ? 'Basic ' + Buffer.from(`${user}:${password ?? ''}`).toString('base64') : undefined;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    const Agent = url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 16 });
  }

  /** The node's URL without credentials: safe for manifests, logs and error messages. */
  describe(): string {
    return this.target.toString().replace(/\/$/, '');
  }

  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const reply = (await this.post({ jsonrpc: '2.0', id, method, params }, method)) as RpcReply;
    return unwrap<T>(reply, method);
  }

  /** One HTTP request carrying many calls; results come back in the order of `calls`. */
  async batch<T = unknown>(calls: Array<{ method: string; params?: unknown[] }>): Promise<T[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params ?? [] }));
    this.nextId += calls.length;
    const replies = (await this.post(body, calls[0].method + ' (batch)')) as RpcReply[];
    if (!Array.isArray(replies)) throw new NodeRpcError(-32700, 'batch reply is not an array', calls[0].method);
    const byId = new Map<unknown, RpcReply>(replies.map((r) => [r.id, r]));
    return calls.map((c, i) => {
      const r = byId.get(first + i);
      if (!r) throw new NodeRpcError(-32700, 'missing reply in batch', c.method);
      return unwrap<T>(r, c.method);
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
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 401 || res.statusCode === 403) {
              reject(new UserError(`node ${this.describe()}: wrong RPC credentials (HTTP ${res.statusCode})`));
              return;
            }
            if (text.length === 0) {
              reject(new NodeRpcError(-32700, `empty reply (HTTP ${res.statusCode})`, what));
              return;
            }
            try {
              resolve(JSON.parse(text));
            } catch {
              reject(new NodeRpcError(-32700, `reply is not JSON (HTTP ${res.statusCode}): ${text.slice(0, 120)}`, what));
            }
          });
        },
      );
      req.setTimeout(this.timeoutMs, () => req.destroy(new Error(`no reply within ${this.timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'EHOSTUNREACH') {
          reject(new UserError(`node ${this.describe()} is unreachable (${err.code})`));
        } else reject(err);
      });
      req.end(payload);
    });
  }
}

function unwrap<T>(reply: RpcReply, method: string): T {
  if (reply.error) throw new NodeRpcError(reply.error.code, reply.error.message, method);
  return reply.result as T;
}
