/**
 * The lab's RPC credentials: one user:password pair in a cookie-format file (Bitcoin Core's
 * `.cookie` layout), mode 0600. btcd, the adapter and both Electrum servers use it; clients read it
 * through `NodeRpc({cookieFile})`. Fresh on every `lab up`, since every up is a fresh chain.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { makeDirs } from '../../core/output-path';

export interface Credentials {
  user: string;
  password: string;
}

export function writeFreshCredentials(cookieFile: string): Credentials {
  // Hex only: the password travels inside URLs (ElectrumX's DAEMON_URL) and a TOML string.
  const creds = { user: 'lab', password: randomBytes(24).toString('hex') };
  makeDirs(path.dirname(cookieFile));
  fs.rmSync(cookieFile, { force: true });
  fs.writeFileSync(cookieFile, `${creds.user}:${creds.password}`, { mode: 0o600 });
  return creds;
}

export function readCredentials(cookieFile: string): Credentials {
  const text = fs.readFileSync(cookieFile, 'utf8').trim();
  const colon = text.indexOf(':');
  if (colon <= 0) throw new Error(`${cookieFile} is not a user:password cookie file`);
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

export function basicAuthHeader(c: Credentials): string {
  return 'Basic ' + Buffer.from(`${c.user}:${c.password}`).toString('base64');
}
