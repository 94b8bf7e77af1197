/**
 * A coordinated wallet load as `cluster simulate` runs it: 4 pods as local processes, each from its
 * own loopback address, each holding its share of the wallets on the lab's real ElectrumX; shard 1
 * mines a block after paying some of them, every shard judges its own held connections against
 * the block's instant, and shard 1 merges the shards into one run. It mines, so
 * test/lab/sequencer.js runs it after the lab tests that rely on the chain as generated.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { labEnv } from './lab/env';

const ROOT = path.resolve(__dirname, '..');
const LAUNCHER = path.join(ROOT, 'bin', 'electrum-bench.js');
const HELD = 40;
let tmp: string;
beforeAll(() => (tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'eb-cluster-wallets-'))));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Summary {
  server: string;
  held: number;
  holdFailed: number;
  notify: { blocks: number; headers: { expected: number; ok: number; missing: number; duplicate: number }; scripthash: { expected: number; ok: number; missing: number } };
}

test(`4 shards hold ${HELD} wallets in all and every held connection hears the block shard 1 mined, none missing; one merged run`, () => {
  const electrumx = labEnv().electrum.electrumx;
  const db = path.join(tmp, 'wallets.sqlite');
  const sim = spawnSync(
    process.execPath,
    [LAUNCHER, 'cluster', 'simulate', '--shards', '4', '--name', 'eb-wallets', '--', 'load', '--workload', 'electrum', '--wallets', labEnv().walletsPath, '--wallet-max-txs', '10',
      '--server', `electrumx@${electrumx.host}:${electrumx.port}`, '--hold', String(HELD), '--notify', '--blocks', '1', '--pay-wallets', '3', '--json', '--db', db],
    { cwd: ROOT, encoding: 'utf8', timeout: 300_000 },
  );
  expect(sim.stderr).not.toMatch(/internal error/);
  expect({ code: sim.status, stderr: sim.status === 0 ? '' : sim.stderr }).toEqual({ code: 0, stderr: '' });
  // Each pod held its share, from its own address (the pods' own parts are on stderr, prefixed).
  for (let i = 0; i < 4; i++) expect(sim.stderr).toMatch(new RegExp(`\\[eb-wallets-${i}\\][^\\n]*10 wallets held`));
  const out = JSON.parse(sim.stdout) as { shards: number; servers: Summary[]; startSkew: Record<string, { shards: number }> };
  expect(out.shards).toBe(4);
  const [s] = out.servers;
  expect({ held: s.held, failed: s.holdFailed }).toEqual({ held: HELD, failed: 0 });
  expect(s.notify.blocks).toBe(1);
  expect(s.notify.headers).toMatchObject({ expected: HELD, ok: HELD, missing: 0, duplicate: 0 });
  // Three wallets paid by shard 1; every shard's held copies of them heard it.
  expect(s.notify.scripthash.expected).toBeGreaterThanOrEqual(3);
  expect(s.notify.scripthash).toMatchObject({ missing: 0, ok: s.notify.scripthash.expected });
  expect(Object.values(out.startSkew).every((k) => k.shards === 4)).toBe(true);
  // One run in the database, holding every shard's rows: a sync per held wallet, a headers notification per held connection.
  const d = new Database(db, { readonly: true });
  try {
    expect(d.prepare("SELECT kind, status FROM runs").all()).toEqual([{ kind: 'wallet-load', status: 'completed' }]);
    expect((d.prepare('SELECT count(*) AS n FROM wallet_syncs').get() as { n: number }).n).toBe(HELD);
    expect((d.prepare("SELECT count(*) AS n FROM wallet_notifications WHERE kind = 'headers' AND status = 'ok'").get() as { n: number }).n).toBe(HELD);
    expect((d.prepare("SELECT sum(c.count) AS n FROM load_cells c WHERE c.method = 'hold-sync' AND c.outcome = 'ok'").get() as { n: number }).n).toBe(HELD);
  } finally {
    d.close();
  }
}, 300_000);
