/** The lab's servers as the registry lists them: ports that never overlap or move, and every server complete. */
import fs from 'node:fs';
import path from 'node:path';
import { labConfig } from '../../../../src/lab/config';
import type { LabServer } from '../../../../src/lab/servers/lab-server';
import { LAB_SERVERS, labComponentPorts } from '../../../../src/lab/servers/registry';
import { isProfileName } from '../../../../src/servers/profiles';
import { MAX_VERSIONS, VERSION_PORTS } from '../../../../src/lab/versions';

const SERVERS: readonly LabServer[] = LAB_SERVERS;
const INSTALL_SCRIPT = fs.readFileSync(path.join(__dirname, '..', '..', '..', '..', 'scripts', 'install-lab.sh'), 'utf8');

test('every port of the lab is its own, none among the ports of servers in other versions', () => {
  const cfg = labConfig({ ELECTRUM_BENCH_LAB_PORT_BASE: '30000' });
  const ports = labComponentPorts(cfg).map(([, port]) => port);
  expect(new Set(ports).size).toBe(ports.length);
  expect(Math.min(...ports)).toBe(30000);
  const versionsEnd = cfg.ports.versionsBase + MAX_VERSIONS * VERSION_PORTS;
  expect(ports.filter((p) => p >= cfg.ports.versionsBase && p < versionsEnd)).toEqual([]);
});

// docs/lab.md lists these and users have them in their scripts: a server added takes free offsets.
const DOCUMENTED_PORTS: Record<string, Record<string, number>> = {
  electrumx: { electrum: 3, rpc: 4, tls: 7, ws: 16, wss: 17 },
  electrs: { electrum: 5, monitoring: 6 },
  esplora: { electrum: 8, http: 9, monitoring: 10 },
  fulcrum: { electrum: 11, tls: 12, admin: 13, stats: 14, ws: 18, wss: 19 },
  'mempool-electrs': { electrum: 30, http: 31, monitoring: 32 },
};

test('the servers keep the ports docs/lab.md gives them', () => {
  const ports = Object.fromEntries(SERVERS.filter((s) => s.name in DOCUMENTED_PORTS).map((s) => [s.name, s.ports]));
  expect(ports).toEqual(DOCUMENTED_PORTS);
});

test('each server is measured as a known profile, and its TLS, WebSocket, REST and metrics ports are among its own', () => {
  for (const s of SERVERS) {
    const slots = Object.keys(s.ports);
    const named = [s.tls, s.websocket?.plain, s.websocket?.tls, s.rest?.port, s.metrics].filter((slot): slot is string => slot !== undefined);
    expect({ server: s.name, profile: isProfileName(s.profile), rest: s.rest ? isProfileName(s.rest.profile) : true, slots: named.filter((n) => slots.includes(n)) }).toEqual({
      server: s.name,
      profile: true,
      rest: true,
      slots: named,
    });
  }
});

test('names, install targets and datadirs are each one server\'s', () => {
  for (const key of [(s: LabServer) => s.name, (s: LabServer) => s.install.target, (s: LabServer) => s.datadir('/state')]) {
    const values = SERVERS.map(key);
    expect(new Set(values).size).toBe(values.length);
  }
  for (const s of SERVERS) expect(path.dirname(s.datadir('/state'))).toBe('/state');
});

test('scripts/install-lab.sh installs every server, by default too', () => {
  const defaults = /\|\| targets=\(([^)]*)\)/.exec(INSTALL_SCRIPT)?.[1].split(/\s+/) ?? [];
  for (const { install } of LAB_SERVERS) {
    expect({ target: install.target, step: INSTALL_SCRIPT.includes(`\n    ${install.target}) install_`), byDefault: defaults.includes(install.target) }).toEqual({
      target: install.target,
      step: true,
      byDefault: true,
    });
  }
});
