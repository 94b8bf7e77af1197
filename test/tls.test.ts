/**
 * TLS for real: the lab's ElectrumX also listens with TLS on a certificate signed by the lab's own
 * CA. A client given nothing must refuse it (as it would a public server's forged certificate),
 * `--ca` with the lab's CA file must make it trusted, and `--tls-insecure` must work and say so.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { ElectrumClient } from '../src/electrum/client';
import { labEnv } from './lab/env';

const ROOT = path.resolve(__dirname, '..');
const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');
const BENCH = path.join(ROOT, 'src', 'cli', 'bench.ts');
const WARNING = 'electrum-bench: warning: --tls-insecure: server certificates are not verified';
let tmp: string;

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-tls-'));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function tlsServer(): string {
  const t = labEnv().electrumxTls;
  return `electrumx@ssl://${t.host}:${t.port}`;
}

/** The bench CLI as a user runs it, against the lab ElectrumX's TLS port. */
function bench(db: string, extra: string[]) {
  const args = ['--no-progress', '--server', tlsServer(), '--dataset', labEnv().datasetPath, '--passes', '2', '--warmup', '1', '--limit', '3', '--db', db];
  return spawnSync(TSX, [BENCH, ...args, ...extra], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
}

function query<T>(db: string, sql: string): T {
  const d = new Database(db, { readonly: true });
  try {
    return d.prepare(sql).get() as T;
  } finally {
    d.close();
  }
}

test('the lab CA file is a PEM certificate, and the TLS port is not the plain one', () => {
  const env = labEnv();
  expect(fs.readFileSync(env.electrumxTls.caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
  expect(env.electrumxTls.port).not.toBe(env.electrum.electrumx.port);
});

test('the TLS port listens on 127.0.0.1 only', () => {
  const hexPort = labEnv().electrumxTls.port.toString(16).toUpperCase().padStart(4, '0');
  // /proc/net/tcp lists sockets as hex IP:port with state 0A for LISTEN; 0100007F is 127.0.0.1.
  const binds = fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[3] === '0A' && f[1]?.endsWith(':' + hexPort))
    .map((f) => f[1]);
  expect(binds).toEqual(['0100007F:' + hexPort]);
});

test('ElectrumClient over TLS with the lab CA answers headers.subscribe at the same height as TCP', async () => {
  const env = labEnv();
  const t = env.electrumxTls;
  const plain = await ElectrumClient.connect({ ...env.electrum.electrumx, keepaliveMs: 0 });
  const secure = await ElectrumClient.connect({ host: t.host, port: t.port, tls: true, ca: fs.readFileSync(t.caFile), keepaliveMs: 0 });
  try {
    expect(secure.label).toBe(`ssl://${t.host}:${t.port}`);
    expect(secure.server.software).toMatch(/ElectrumX/i);
    const [a, b] = await Promise.all([
      plain.request<{ height: number }>('blockchain.headers.subscribe'),
      secure.request<{ height: number }>('blockchain.headers.subscribe'),
    ]);
    expect(b.height).toBe(a.height);
    expect(b.height).toBeGreaterThanOrEqual(env.tip);
  } finally {
    plain.close();
    secure.close();
  }
});

test('ElectrumClient over TLS without the lab CA refuses the certificate', async () => {
  const t = labEnv().electrumxTls;
  await expect(ElectrumClient.connect({ host: t.host, port: t.port, tls: true, keepaliveMs: 0, timeoutMs: 10_000 })).rejects.toThrow(
    /unable to verify|self[- ]signed|unable to get local issuer/i,
  );
});

test('bench without --ca: exit 2, one line naming the server and the verification failure, no database', () => {
  const t = labEnv().electrumxTls;
  const db = path.join(tmp, 'no-ca.sqlite');
  const r = bench(db, []);
  expect(r.status).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toContain(`electrumx (ssl://${t.host}:${t.port})`);
  expect(lines[0]).toMatch(/unable to verify|self[- ]signed|unable to get local issuer/i);
  expect(lines[0]).not.toContain('warning');
  expect(fs.existsSync(db)).toBe(false);
});

test('bench with --ca <lab CA>: exit 0, ok samples stored for the ssl:// server, no warning', () => {
  const t = labEnv().electrumxTls;
  const db = path.join(tmp, 'ca.sqlite');
  const r = bench(db, ['--ca', t.caFile]);
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  expect(query<{ n: number }>(db, "SELECT count(*) n FROM samples WHERE status = 'ok'").n).toBeGreaterThan(0);
  expect(query<{ n: number }>(db, "SELECT count(*) n FROM samples WHERE status <> 'ok'").n).toBe(0);
  expect(query<{ url: string }>(db, 'SELECT url FROM run_servers').url).toBe(`ssl://${t.host}:${t.port}`);
});

test('bench with --tls-insecure and no --ca: exit 0 and one warning on stderr', () => {
  const db = path.join(tmp, 'insecure.sqlite');
  const r = bench(db, ['--tls-insecure']);
  expect(r.status).toBe(0);
  expect(r.stderr.trim().split('\n')).toEqual([WARNING]);
  expect(query<{ n: number }>(db, "SELECT count(*) n FROM samples WHERE status = 'ok'").n).toBeGreaterThan(0);
  expect(query<{ url: string }>(db, 'SELECT url FROM run_servers').url).toMatch(/^ssl:\/\//);
});

test('--tls-insecure against a plain TCP server says nothing (nothing left unverified)', () => {
  const env = labEnv();
  const db = path.join(tmp, 'plain.sqlite');
  const s = env.electrum.electrumx;
  const r = spawnSync(
    TSX,
    [BENCH, '--no-progress', '--server', `electrumx@${s.host}:${s.port}`, '--dataset', env.datasetPath, '--passes', '2', '--warmup', '1', '--limit', '1', '--db', db, '--tls-insecure'],
    { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
  );
  expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
});

test('dataset addresses through the TLS port: refused without --ca (nothing written), counted with the lab CA', () => {
  const t = labEnv().electrumxTls;
  const line = fs.readFileSync(labEnv().datasetPath, 'utf8').split('\n').find((l) => l.includes('"address":"'))!;
  const { address, txCount } = JSON.parse(line) as { address: string; txCount: number };
  const run = (out: string, extra: string[]) =>
    spawnSync(TSX, [path.join(ROOT, 'src', 'cli', 'dataset.ts'), 'addresses', '--count-via', `electrums://${t.host}:${t.port}`, address, '--out', out, ...extra], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  const refusedOut = path.join(tmp, 'refused.jsonl');
  const refused = run(refusedOut, []);
  expect(refused.status).toBe(2);
  expect(refused.stderr.trim().split('\n')).toHaveLength(1);
  expect(refused.stderr).toContain(`electrums://${t.host}:${t.port}`);
  expect(fs.existsSync(refusedOut)).toBe(false);
  const out = path.join(tmp, 'counted.jsonl');
  const counted = run(out, ['--ca', t.caFile]);
  expect({ status: counted.status, stderr: counted.stderr }).toEqual({ status: 0, stderr: '' });
  const written = JSON.parse(fs.readFileSync(out, 'utf8').split('\n')[0]) as { address: string; txCount: number };
  expect({ address: written.address, txCount: written.txCount }).toEqual({ address, txCount });
});
