/**
 * The Electrum server a build counts through: a few connections lent one caller at a time, the profile that
 * gives its batch cap and error rules, and the two facts checked against the node before any
 * counting: which chain it is on (hash of block 0) and where its tip is.
 */
import { ConnectionSet } from '../transports/electrum-connections';
import { HandshakeSilence, isElectrumError } from '../electrum/errors';
import { PROFILES, ProfileName, ServerProfile } from '../servers/profiles';
import { UserError } from '../core/user-error';
import { headerHash, isHeaderHex } from './network';
import type { ElectrumTarget } from './options';

export interface CountServer {
  pool: ConnectionSet;
  profile: ServerProfile;
  software: string;
  label: string;
}

export async function openCountServer(
  target: ElectrumTarget,
  opts: { connections: number; timeoutMs: number; profile: ProfileName | 'auto' },
): Promise<CountServer> {
  const pool = new ConnectionSet(
    { host: target.host, port: target.port, tls: target.tls, websocket: target.websocket, tlsInsecure: target.tlsInsecure, ca: target.ca, timeoutMs: opts.timeoutMs, clientName: 'electrum-bench dataset' },
    opts.connections,
    1,
  );
  let software: string;
  try {
    software = (await pool.start()).software;
  } catch (err) {
    pool.close();
    const why = err instanceof HandshakeSilence ? (err as Error).message : `is unreachable: ${(err as Error).message}`;
    throw new UserError(`electrum server ${target.label} ${why}`);
  }
  const profile = PROFILES[opts.profile === 'auto' ? profileOfSoftware(software) : opts.profile];
  return { pool, profile, software, label: target.label };
}

/** Guesses the implementation from server.version's software string ("ElectrumX 1.16.0", "electrs/0.12.0", "mempool-electrs 3.1.0-dev" …). */
export function profileOfSoftware(software: string): ProfileName {
  const s = software.toLowerCase();
  if (s.includes('electrumx')) return 'electrumx';
  if (s.includes('fulcrum')) return 'fulcrum';
  if (s.includes('mempool-electrs')) return 'mempool-electrs';
  if (s.includes('esplora')) return 'esplora';
  if (s.includes('electrs')) return 'electrs';
  return 'generic';
}

export async function genesisHashOf(server: CountServer): Promise<string> {
  const hex = await askFor(server, 'blockchain.block.header', [0], 'block 0\'s 80-byte header in hex', (a) => (isHeaderHex(a) ? a : undefined));
  return headerHash(hex);
}

export function tipOf(server: CountServer): Promise<{ height: number; hash: string }> {
  return askFor(server, 'blockchain.headers.subscribe', [], 'the tip as {height, hex}', (a) => {
    const t = a as { height?: unknown; hex?: unknown } | null;
    return t !== null && typeof t === 'object' && Number.isInteger(t.height) && isHeaderHex(t.hex) ? { height: t.height as number, hash: headerHash(t.hex) } : undefined;
  });
}

/**
 * One of the facts every count rests on. A server that fails the call or answers it in another
 * shape is at fault, not us: said in one line naming the server and what it answered.
 */
async function askFor<T>(server: CountServer, method: string, params: unknown[], wanted: string, read: (answer: unknown) => T | undefined): Promise<T> {
  let answer: unknown;
  try {
    answer = await server.pool.use((c) => c.request(method, params));
  } catch (err) {
    if (!isElectrumError(err)) throw err;
    throw new UserError(`electrum server ${server.label} failed ${method}: ${err.message}`);
  }
  const value = read(answer);
  if (value === undefined) throw new UserError(`electrum server ${server.label} answered ${method} with ${shown(answer)}, not ${wanted}`);
  return value;
}

/** An answer as quoted in a message: JSON, cut short. */
function shown(answer: unknown): string {
  const text = JSON.stringify(answer) ?? String(answer);
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
