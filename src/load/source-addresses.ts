/**
 * `--source-addresses`: loopback source addresses to spread connections over, so a server's per-IP
 * (or per-/24) limits can be exercised on purpose (one address) or kept out of the way (many).
 * Only 127.0.0.0/8: every address there is this machine's, and load never leaves it.
 */
import net from 'node:net';
import { UserError } from '../core/user-error';

const MAX_ADDRESSES = 1024;

export function parseSourceAddresses(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const [from, to] = part.split('-').map((s) => s.trim());
    const a = loopbackNumber(from, text);
    const b = to === undefined ? a : loopbackNumber(to, text);
    if (b < a) throw new UserError(`--source-addresses: range ${part} runs backwards`);
    if (b - a + out.length >= MAX_ADDRESSES) throw new UserError(`--source-addresses: more than ${MAX_ADDRESSES} addresses in ${JSON.stringify(text)}`);
    for (let n = a; n <= b; n++) out.push(`127.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`);
  }
  if (out.length === 0) throw new UserError(`--source-addresses: no address in ${JSON.stringify(text)}`);
  return out;
}

/** The address's low 24 bits, after checking it is an IPv4 loopback address. */
function loopbackNumber(ip: string, text: string): number {
  if (!net.isIPv4(ip) || !ip.startsWith('127.')) {
    throw new UserError(`--source-addresses: ${JSON.stringify(ip)} in ${JSON.stringify(text)} is not a loopback address (127.0.0.0/8); load never leaves this machine`);
  }
  const [, b, c, d] = ip.split('.').map(Number);
  return (b << 16) | (c << 8) | d;
}
