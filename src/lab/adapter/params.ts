/** Parameter checks with Bitcoin Core's error codes, so a caller sees the errors Core would give. */
import { RpcFailure } from './btcd-client';
import { isHashHex } from './bytes';

export const RPC_MISC_ERROR = -1;
export const RPC_TYPE_ERROR = -3;
export const RPC_INVALID_ADDRESS_OR_KEY = -5;
export const RPC_INVALID_PARAMETER = -8;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_PARSE_ERROR = -32700;
export const RPC_INTERNAL_ERROR = -32603;
export const RPC_IN_WARMUP = -28;

export function arity(method: string, params: unknown[], min: number, max: number): void {
  if (params.length < min || params.length > max) {
    throw new RpcFailure(RPC_MISC_ERROR, `${method}: expected ${min === max ? min : `${min} to ${max}`} parameters, got ${params.length}`);
  }
}

export function hashParam(v: unknown, name: string): string {
  if (typeof v !== 'string' || !isHashHex(v)) {
    throw new RpcFailure(RPC_INVALID_PARAMETER, `${name} must be of length 64 (hexadecimal string)`);
  }
  return v.toLowerCase();
}

export function intParam(v: unknown, name: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) throw new RpcFailure(RPC_TYPE_ERROR, `${name}: expected an integer`);
  return v;
}

/** Core accepts a bool or a number for verbosity-like arguments; btcd only takes an int. */
export function verbosityParam(v: unknown, name: string, dflt: number): number {
  if (v === undefined || v === null) return dflt;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return intParam(v, name);
}
