/**
 * A --ca file: extra CA certificates to trust for TLS servers (self-signed labs and operators'
 * own CAs). Read and checked before any connection: a file that is not PEM would otherwise
 * surface as the server's TLS failure.
 */
import fs from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { claimInput } from './output-path';
import { UserError } from './user-error';

export function readCa(file: string): Buffer {
  claimInput(file, '--ca');
  let pem: Buffer;
  try {
    pem = fs.readFileSync(file);
  } catch (err) {
    throw new UserError(`--ca: cannot read ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
  const certificates = pem.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (certificates.length === 0) throw new UserError(`--ca: ${file} holds no PEM certificate (no "-----BEGIN CERTIFICATE-----" block)`);
  for (const [i, text] of certificates.entries()) {
    try {
      new X509Certificate(text);
    } catch (err) {
      throw new UserError(`--ca: ${file}: certificate ${i + 1} does not parse (${(err as Error).message})`);
    }
  }
  return pem;
}
