/**
 * The adapter's JSON-RPC front end, shaped like Bitcoin Core's (httprpc.cpp, request.cpp):
 * single calls and batches; a request with "jsonrpc":"2.0" gets a strict 2.0 reply (result XOR
 * error, HTTP 200, notifications unanswered), anything else the legacy 1.0 reply (result AND error,
 * HTTP 500/404/400 for a failed single call). ElectrumX sends no "jsonrpc" member and reads
 * `reply['error']`, electrs sends 2.0 and rejects a reply claiming another version.
 */
import { BtcdUnavailable, RpcFailure, type RpcError, type RpcOutcome } from './btcd-client';
import { DIALECT } from './dialect';
import { RequestContext, type AdapterDeps } from './context';
import { OWN_METHODS } from './own-answers';
import { STORED } from './stored-answers';
import { RPC_INTERNAL_ERROR, RPC_INVALID_REQUEST, RPC_METHOD_NOT_FOUND, RPC_PARSE_ERROR } from './params';

export interface HttpReply {
  status: number;
  contentType: string;
  body: Buffer | string;
}

interface Request {
  v2: boolean;
  hasId: boolean;
  id: unknown;
  method: unknown;
  params: unknown;
}

export async function handleJsonRpc(body: string, deps: AdapterDeps): Promise<HttpReply> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return json(500, { result: null, error: { code: RPC_PARSE_ERROR, message: 'Parse error' }, id: null });
  }
  const ctx = new RequestContext(deps);
  if (Array.isArray(parsed)) {
    // Core answers an empty batch with an empty array; Esplora's electrs sends one when it has
    // nothing to ask (e.g. no new blocks) and fails on anything else.
    if (parsed.length === 0) return json(200, []);
    const reqs = parsed.map(toRequest);
    const outcomes = await Promise.all(reqs.map((r) => run(r, ctx)));
    const replies = reqs.map((r, i) => reply(r, outcomes[i])).filter((_, i) => !(reqs[i].v2 && !reqs[i].hasId));
    return replies.length === 0 ? { status: 204, contentType: 'application/json', body: '' } : json(200, replies);
  }
  const req = toRequest(parsed);
  const outcome = await run(req, ctx);
  if (req.v2) return req.hasId ? json(200, reply(req, outcome)) : { status: 204, contentType: 'application/json', body: '' };
  return json(outcome.error ? legacyStatus(outcome.error) : 200, reply(req, outcome));
}

function toRequest(x: unknown): Request {
  const o = (typeof x === 'object' && x !== null ? x : {}) as Record<string, unknown>;
  return { v2: o.jsonrpc === '2.0', hasId: 'id' in o, id: o.id ?? null, method: o.method, params: o.params };
}

async function run(req: Request, ctx: RequestContext): Promise<RpcOutcome> {
  if (typeof req.method !== 'string') return failed(RPC_INVALID_REQUEST, 'Method must be a string');
  if (req.params !== undefined && req.params !== null && !Array.isArray(req.params)) {
    return failed(RPC_INVALID_REQUEST, 'named parameters are not supported by the lab adapter; pass params as an array');
  }
  const params = (req.params ?? []) as unknown[];
  const handler = OWN_METHODS[req.method]?.handler ?? STORED[req.method] ?? DIALECT[req.method];
  try {
    if (handler) return { result: (await handler(params, ctx)) ?? null, error: null };
    return await ctx.btcd.call(req.method, params);
  } catch (err) {
    if (err instanceof RpcFailure) return failed(err.code, err.message);
    if (err instanceof BtcdUnavailable) throw err; // the whole HTTP request fails with 503
    return failed(RPC_INTERNAL_ERROR, `${req.method}: ${(err as Error).message}`);
  }
}

function failed(code: number, message: string): RpcOutcome {
  return { result: null, error: { code, message } };
}

function reply(req: Request, o: RpcOutcome): Record<string, unknown> {
  if (!req.v2) return { result: o.error ? null : o.result, error: o.error, id: req.id };
  return o.error ? { jsonrpc: '2.0', error: o.error, id: req.id } : { jsonrpc: '2.0', result: o.result, id: req.id };
}

// httprpc.cpp JSONErrorReply: the HTTP status of a failed legacy single call.
function legacyStatus(e: RpcError): number {
  if (e.code === RPC_INVALID_REQUEST) return 400;
  if (e.code === RPC_METHOD_NOT_FOUND) return 404;
  return 500;
}

function json(status: number, value: unknown): HttpReply {
  return { status, contentType: 'application/json', body: JSON.stringify(value) + '\n' };
}
