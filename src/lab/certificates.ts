/**
 * The lab's own certificate authority, so its ElectrumX can listen with TLS the way a public server
 * does: clients verify the server certificate against a CA they were given (`--ca`), and a client
 * given nothing must refuse it. Made with the `openssl` CLI (Debian package `openssl`, which
 * scripts/install-lab.sh installs when missing) at every `up`, like the chain and the credentials.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { UserError } from '../core/user-error';
import type { LabPaths } from './config';

const run = promisify(execFile);

export interface LabCertificates {
  caFile: string; // PEM; what users pass to `--ca`
  certFile: string; // the server's certificate, for 127.0.0.1 and localhost
  fullChainFile: string; // the server's certificate then the CA's: Fulcrum accepts only a full chain
  keyFile: string; // the server's private key, mode 0600
}

export function labCertificateFiles(paths: LabPaths): LabCertificates {
  return {
    caFile: path.join(paths.tlsDir, 'ca.pem'),
    certFile: path.join(paths.tlsDir, 'server.pem'),
    fullChainFile: path.join(paths.tlsDir, 'fullchain.pem'),
    keyFile: path.join(paths.tlsDir, 'server.key'),
  };
}

// One config for both steps, so the system's openssl.cnf (absent or different on some images)
// cannot change what we produce. The server certificate carries only what a TLS client checks:
// the addresses it is dialled by (SAN; the CN is ignored by Node), and serverAuth.
const OPENSSL_CNF = `
[req]
distinguished_name = dn
[dn]
[ca_ext]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[server_ext]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid
`;

// P-256 rather than RSA: key generation is instant, and both Node and ElectrumX's Python ssl take it.
const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** A fresh CA and a server certificate signed by it, replacing any previous ones. */
export async function generateLabCertificates(paths: LabPaths): Promise<LabCertificates> {
  const files = labCertificateFiles(paths);
  const dir = paths.tlsDir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const cnf = path.join(dir, 'openssl.cnf');
  const caKey = path.join(dir, 'ca.key');
  const csr = path.join(dir, 'server.csr');
  fs.writeFileSync(cnf, OPENSSL_CNF);
  // Each `up` has a CA of its own name: a client holding an older lab's CA file then fails with
  // a clear "unable to verify" instead of a signature mismatch under an identical issuer name.
  const tag = crypto.randomBytes(4).toString('hex');
  try {
    await openssl(['req', '-x509', '-new', '-config', cnf, '-extensions', 'ca_ext', ...EC_KEY,
      '-keyout', caKey, '-out', files.caFile, '-days', '3650', '-subj', `/O=electrum-bench lab/CN=electrum-bench lab CA ${tag}`]);
    await openssl(['req', '-new', '-config', cnf, ...EC_KEY, '-keyout', files.keyFile, '-out', csr, '-subj', '/O=electrum-bench lab/CN=localhost']);
    await openssl(['x509', '-req', '-in', csr, '-CA', files.caFile, '-CAkey', caKey,
      '-set_serial', `0x${crypto.randomBytes(16).toString('hex')}`, '-days', '825',
      '-extfile', cnf, '-extensions', 'server_ext', '-out', files.certFile]);
  } finally {
    // The CA signs this one certificate and is never needed again: with its key gone, nothing can
    // be issued under a CA that users were told to trust.
    for (const f of [caKey, csr, cnf]) fs.rmSync(f, { force: true });
  }
  fs.chmodSync(files.keyFile, 0o600);
  fs.writeFileSync(files.fullChainFile, Buffer.concat([fs.readFileSync(files.certFile), fs.readFileSync(files.caFile)]));
  return files;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 30_000 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') {
      throw new UserError('openssl is missing (the lab makes its TLS certificates with it): install the Debian package openssl, or run scripts/install-lab.sh as root');
    }
    throw new Error(`openssl ${args[0]} failed: ${(e.stderr ?? e.message).trim()}`);
  }
}
