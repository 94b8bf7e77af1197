/**
 * The node as the CLI stages see it (dataset, the lab's generator and readiness checks): the shared
 * transport (./transport.ts), with a node's RPC error thrown as a NodeRpcError and a problem the
 * user can fix (unreachable node, wrong credentials, bad URL) as a UserError.
 */
import { UserError } from '../core/user-error';
import { NodeTransport, TransportError, type RpcCall, type RpcOutcome, type TransportOptions } from './transport';

export type NodeRpcOptions = TransportOptions;

export class NodeRpcError extends Error {
  constructor(readonly code: number, message: string, readonly method: string) {
    super(`${method}: ${message} (code ${code})`);
    this.name = 'NodeRpcError';
  }
}

/** JSON-RPC "parse error": what a reply that cannot be read counts as. */
const PARSE_ERROR = -32700;

export class NodeRpc {
  private readonly transport: NodeTransport;

  constructor(opts: NodeRpcOptions) {
    this.transport = new NodeTransport(opts);
  }

  /** The node's URL without credentials: safe for manifests, logs and error messages. */
  describe(): string {
    return this.transport.describe();
  }

  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    return unwrap<T>(await guard(this.transport.call(method, params), method), method);
  }

  /** One HTTP request carrying many calls; results come back in the order of `calls`. */
  async batch<T = unknown>(calls: RpcCall[]): Promise<T[]> {
    if (calls.length === 0) return [];
    const outcomes = await guard(this.transport.batch(calls), calls[0].method);
    return outcomes.map((o, i) => unwrap<T>(o, calls[i].method));
  }

  close(): void {
    this.transport.close();
  }
}

async function guard<T>(p: Promise<T>, method: string): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (!(err instanceof TransportError)) throw err;
    if (err.kind === 'unreachable' || err.kind === 'credentials') throw new UserError(err.message);
    if (err.kind === 'bad-reply') throw new NodeRpcError(PARSE_ERROR, err.message, method);
    throw err;
  }
}

function unwrap<T>(o: RpcOutcome, method: string): T {
  if (o.error) throw new NodeRpcError(o.error.code, o.error.message, method);
  return o.result as T;
}
