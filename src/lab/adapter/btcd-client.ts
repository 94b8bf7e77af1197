/**
 * The adapter's (and the lab's readiness checks') client of btcd's own JSON-RPC: the shared node
 * transport (src/node/transport.ts), which also renames btcd's `rawtx`, so handlers see Core's
 * shapes. It sends "jsonrpc":"1.0" so btcd replies with both `result` and `error`, as the adapter's
 * legacy front end passes them on. RPC errors are values; a failed exchange throws BtcdUnavailable.
 */
import { formatHostPort } from '../../core/server-address';
import { NodeTransport, TransportError, type RpcCall, type RpcError, type RpcOutcome } from '../../node/transport';
import type { Credentials } from './credentials';

export type { RpcCall, RpcError, RpcOutcome };

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
  private readonly transport: NodeTransport;

  constructor(host: string, port: number, creds: Credentials, timeoutMs = 60_000) {
    this.transport = new NodeTransport({
      url: `http://${formatHostPort(host, port)}`,
      user: creds.user,
      password: creds.password,
      timeoutMs,
      jsonrpc: '1.0',
    });
  }

  call(method: string, params: unknown[] = []): Promise<RpcOutcome> {
    return unavailableOnFailure(this.transport.call(method, params));
  }

  /** Many calls in one HTTP request; outcomes in the order of `calls`. */
  batch(calls: RpcCall[]): Promise<RpcOutcome[]> {
    return unavailableOnFailure(this.transport.batch(calls));
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
    this.transport.close();
  }
}

async function unavailableOnFailure<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof TransportError) throw new BtcdUnavailable(`btcd: ${err.message}`);
    throw err;
  }
}

export function unwrap<T>(o: RpcOutcome): T {
  if (o.error) throw new RpcFailure(o.error.code, o.error.message);
  return o.result as T;
}
