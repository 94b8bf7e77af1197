/**
 * The Electrum server a build counts through: a few connections lent one caller at a time, the profile that
 * gives its batch cap and error rules, and the two facts checked against the node before any
 * counting: which chain it is on (hash of block 0) and where its tip is.
 */
import { ConnectionSet } from '../transports/electrum-connections';
import { HandshakeSilence } from '../electrum/errors';
import { PROFILES, ProfileName, ServerProfile } from '../servers/profiles';
import { UserError } from '../core/user-error';
import { headerHash } from './network';
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
    { host: target.host, port: target.port, tls: target.tls, tlsInsecure: target.tlsInsecure, timeoutMs: opts.timeoutMs, clientName: 'electrum-bench dataset' },
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

/** Guesses the implementation from server.version's software string ("ElectrumX 1.16.0", "electrs/0.12.0" …). */
export function profileOfSoftware(software: string): ProfileName {
  const s = software.toLowerCase();
  if (s.includes('electrumx')) return 'electrumx';
  if (s.includes('fulcrum')) return 'fulcrum';
  if (s.includes('esplora')) return 'esplora';
  if (s.includes('electrs')) return 'electrs';
  return 'generic';
}

export async function genesisHashOf(server: CountServer): Promise<string> {
  const hex = await server.pool.use((c) => c.request<string>('blockchain.block.header', [0]));
  return headerHash(hex);
}

export async function tipOf(server: CountServer): Promise<{ height: number; hash: string }> {
  const tip = await server.pool.use((c) => c.request<{ height: number; hex: string }>('blockchain.headers.subscribe'));
  return { height: tip.height, hash: headerHash(tip.hex) };
}
