/**
 * The part of Bitcoin Core's unauthenticated REST interface (doc/REST-interface.md, rest.cpp) that
 * electrs 0.12 reads through its `bindex` crate, served from btcd's real blocks and txindex.
 * Paths, formats, status codes and error texts follow rest.cpp: 400 for a malformed height/hash/
 * count, 404 for an unknown block or output format, text/plain errors ending in CRLF.
 * Unknown paths are 404.
 */
import { hashToWire, isHashHex, satsToBtc } from './bytes';
import type { AdapterDeps } from './context';
import type { HttpReply } from './jsonrpc';
import { blockInputs, prevoutsOf, spentTxoutsBytes } from './prevouts';

type Format = 'bin' | 'hex' | 'json';

const MAX_REST_HEADERS_RESULTS = 2000; // rest.cpp
const INT32_MAX = 2 ** 31 - 1;

/** A reply at once where the chain store holds the answer (no promise to wait for), else a promise. */
type Answer = HttpReply | Promise<HttpReply>;

export function handleRest(pathname: string, query: URLSearchParams, deps: AdapterDeps): Answer {
  const rest = pathname.slice('/rest/'.length);
  const route = ROUTES.find((r) => rest.startsWith(r.prefix));
  if (!route) return error(404, 'Not found');
  const { param, format } = parseFormat(rest.slice(route.prefix.length));
  if (!format || !route.formats.includes(format)) {
    return error(404, `output format not found (available: ${route.formats.map((f) => '.' + f).join(', ')})`);
  }
  return route.handle(param, format, query, deps);
}

interface Route {
  prefix: string;
  formats: Format[];
  handle(param: string, format: Format, query: URLSearchParams, deps: AdapterDeps): Answer;
}

const ROUTES: Route[] = [
  { prefix: 'blockhashbyheight/', formats: ['bin', 'hex', 'json'], handle: blockhashByHeight },
  { prefix: 'headers/', formats: ['bin', 'hex'], handle: headers },
  { prefix: 'block/', formats: ['bin', 'hex'], handle: block },
  { prefix: 'spenttxouts/', formats: ['bin', 'hex', 'json'], handle: spentTxouts },
  { prefix: 'blockpart/', formats: ['bin', 'hex'], handle: blockPart },
];

// rest.cpp ParseDataFormat: the text after the last '.' names the format.
function parseFormat(s: string): { param: string; format: Format | null } {
  const dot = s.lastIndexOf('.');
  if (dot < 0) return { param: s, format: null };
  const suffix = s.slice(dot + 1);
  if (suffix === 'bin' || suffix === 'hex' || suffix === 'json') return { param: s.slice(0, dot), format: suffix };
  return { param: s, format: null };
}

function blockhashByHeight(param: string, format: Format, _q: URLSearchParams, deps: AdapterDeps): Answer {
  if (!/^\d+$/.test(param) || Number(param) > INT32_MAX) return error(400, `Invalid height: ${param.replace(/[^\w.-]/g, '')}`);
  const reply = (hash: unknown): HttpReply => {
    if (typeof hash !== 'string') return error(404, 'Block height out of range');
    if (format === 'json') return jsonBody({ blockhash: hash });
    // rest.cpp: .bin is the serialized uint256 (reversed), .hex is GetHex() (display order).
    if (format === 'hex') return { status: 200, contentType: 'text/plain', body: hash + '\n' };
    return bytes(format, hashToWire(hash));
  };
  const stored = deps.data.store.hashAt(Number(param));
  return stored ? reply(stored) : deps.btcd.call('getblockhash', [Number(param)]).then((o) => reply(o.result));
}

async function headers(param: string, format: Format, query: URLSearchParams, deps: AdapterDeps): Promise<HttpReply> {
  const parts = param.split('/');
  let rawCount: string;
  let hash: string;
  if (parts.length === 2) [rawCount, hash] = parts; // deprecated since Core 24: /rest/headers/<count>/<hash>
  else if (parts.length === 1) [rawCount, hash] = [query.get('count') ?? '5', parts[0]];
  else return error(400, 'Invalid URI format. Expected /rest/headers/<hash>.<ext>?count=<count>');
  const count = /^\d+$/.test(rawCount) ? Number(rawCount) : NaN;
  if (!(count >= 1 && count <= MAX_REST_HEADERS_RESULTS)) {
    return error(400, `Header count is invalid or out of acceptable range (1-${MAX_REST_HEADERS_RESULTS}): ${rawCount}`);
  }
  if (!isHashHex(hash)) return error(400, `Invalid hash: ${hash}`);
  // Core returns an empty body for an unknown block or one off the active chain; bindex relies on
  // that to detect a reorg.
  return bytes(format, Buffer.concat(await deps.data.activeHeaders(hash, count)));
}

function block(param: string, format: Format, _q: URLSearchParams, deps: AdapterDeps): Answer {
  if (!isHashHex(param)) return error(400, `Invalid hash: ${param}`);
  return withRawBlock(param, deps, (raw) => bytes(format, raw));
}

async function spentTxouts(param: string, format: Format, _q: URLSearchParams, deps: AdapterDeps): Promise<HttpReply> {
  if (param.includes('/')) return error(400, 'Invalid URI format. Expected /rest/spenttxouts/<hash>.<ext>');
  if (!isHashHex(param)) return error(400, `Invalid hash: ${param}`);
  const raw = await deps.data.rawBlock(param);
  if (!raw) return error(404, `${param} not found`);
  const perTx = await prevoutsOf(deps.data, blockInputs(raw), false);
  if (format === 'json') {
    return jsonBody(perTx.map((outs) => outs.map((o) => ({ value: satsToBtc(o.value), scriptPubKey: o.scriptPubKey }))));
  }
  return bytes(format, spentTxoutsBytes(perTx));
}

// Core 31 (PR 33657): bytes [offset, offset+size) of the block as stored, i.e. its serialization.
function blockPart(param: string, format: Format, query: URLSearchParams, deps: AdapterDeps): Answer {
  if (!isHashHex(param)) return error(400, `Invalid hash: ${param}`);
  const offset = nonNegative(query.get('offset'));
  const size = nonNegative(query.get('size'));
  if (offset === null || size === null) return error(400, 'Block part offset and size must be non-negative integers (?offset=N&size=M)');
  return withRawBlock(param, deps, (raw) => {
    if (offset + size > raw.length) return error(400, `Block part ${offset}+${size} is out of range (block has ${raw.length} bytes)`);
    return bytes(format, raw.subarray(offset, offset + size));
  });
}

/** `answer` from the block's bytes: at once from the chain store, else once btcd has sent them. */
function withRawBlock(hash: string, deps: AdapterDeps, answer: (raw: Buffer) => HttpReply): Answer {
  const stored = deps.data.store.block(hash.toLowerCase());
  if (stored) return answer(stored.raw);
  return deps.data.rawBlock(hash).then((raw) => (raw ? answer(raw) : error(404, `${hash} not found`)));
}

function nonNegative(s: string | null): number | null {
  if (s === null || !/^\d+$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : null;
}

function bytes(format: Format, b: Buffer): HttpReply {
  if (format === 'hex') return { status: 200, contentType: 'text/plain', body: b.toString('hex') + '\n' };
  return { status: 200, contentType: 'application/octet-stream', body: b };
}

function jsonBody(v: unknown): HttpReply {
  return { status: 200, contentType: 'application/json', body: JSON.stringify(v) + '\n' };
}

function error(status: number, message: string): HttpReply {
  return { status, contentType: 'text/plain', body: message + '\r\n' };
}
