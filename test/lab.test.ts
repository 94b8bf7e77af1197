/** The lab as a whole: every component running, every Electrum server at the node's tip. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { labConfig, labPaths } from '../src/lab/config';
import { labStatus } from '../src/lab/lab';
import { electrsConfFile, electrs } from '../src/lab/servers/electrs';
import { electrumx } from '../src/lab/servers/electrumx';
import { portsOf } from '../src/lab/servers/lab-server';
import { NodeRpc } from '../src/node/rpc';
import { labEnv } from './lab/env';

const ROOT = path.resolve(__dirname, '..');

test('labStatus: btcd, adapter, ElectrumX and electrs running at the same tip', async () => {
  const s = await labStatus();
  expect(s.up).toBe(true);
  for (const c of s.components) {
    expect({ name: c.name, running: c.running }).toEqual({ name: c.name, running: true });
    expect(c.pid).toEqual(expect.any(Number));
  }
  const rpc = new NodeRpc({ url: s.node.rpcUrl, cookieFile: s.node.cookieFile });
  try {
    const tip = await rpc.call<number>('getblockcount');
    expect(s.node.tip).toBe(tip);
    expect(s.electrum.electrumx).toMatchObject({ running: true, tip, url: `electrum://127.0.0.1:${labEnv().electrum.electrumx.port}` });
    expect(s.electrum.electrs).toMatchObject({ running: true, tip, url: `electrum://127.0.0.1:${labEnv().electrum.electrs.port}` });
  } finally {
    rpc.close();
  }
});

test('`npm run lab -- status --json` prints the same status and exits 0', () => {
  const out = execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'src', 'cli', 'lab.ts'), 'status', '--json'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const s = JSON.parse(out);
  expect(s.up).toBe(true);
  expect(s.node.rpcUrl).toBe(labEnv().rpcUrl);
  expect(s.node.cookieFile).toBe(labEnv().rpcCookieFile);
});

test('credentials files are private (0600) and hold user:password', () => {
  const paths = labPaths(labConfig());
  for (const f of [paths.cookieFile, electrsConfFile(labConfig().stateDir)]) {
    expect(fs.statSync(f).mode & 0o777).toBe(0o600);
  }
  expect(fs.readFileSync(paths.cookieFile, 'utf8')).toMatch(/^[^:\s]+:[0-9a-f]{48}$/);
});

test('every lab port is bound to 127.0.0.1 only', () => {
  const cfg = labConfig();
  // /proc/net/tcp lists listening sockets as hex IP:port; 0100007F is 127.0.0.1.
  const listening = fs
    .readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((f) => f[3] === '0A')
    .map((f) => f[1]);
  for (const port of [cfg.ports.btcdRpc, cfg.ports.adapter, portsOf(cfg, electrumx).electrum, portsOf(cfg, electrs).electrum]) {
    const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
    const binds = listening.filter((a) => a.endsWith(':' + hexPort));
    expect(binds).toEqual(['0100007F:' + hexPort]);
  }
});
