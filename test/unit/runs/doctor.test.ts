/**
 * The pre-flight doctor (src/runs/doctor.ts): plans just under and just over each limit, from each
 * part of a plan (connections per source address and in all, subscriptions, batches, the dataset's
 * largest histories and UTXO sets, the wallets' transactions), which finding rules when several
 * are known, and what --strict-limits does with the lines.
 */
import { diagnose, isExempt, PlanOverLimits, preflight, requestLoadDemands, rulingFinding, walletDemands, type RequestPlanFacts } from '../../../src/runs/doctor';
import { knownLimits } from '../../../src/servers/known-limits';
import type { LimitFinding } from '../../../src/core/server-limits';
import type { DatasetLine } from '../../../src/core/dataset-line';
import type { WalletLine } from '../../../src/core/wallet-line';
import { isUserError } from '../../../src/core/user-error';

const fulcrum = { name: 'fulcrum', host: '127.0.0.1' };
const remote = { name: 'far', host: 'electrum.example.org' };

function line(txCount: number, utxoCount = 1): DatasetLine {
  return { address: null, scripthash: String(txCount).padStart(64, '0'), type: 'p2wpkh', txCount, utxoCount, balance: { confirmed: 1, unconfirmed: 0 } };
}

function requests(over: Partial<RequestPlanFacts> = {}): RequestPlanFacts {
  return { connections: 8, testConnections: 8, sourceAddresses: [], mix: { balance: 1 }, lines: [line(3)], ...over };
}

function measured(limit: LimitFinding['limit'], value: number): LimitFinding {
  return { limit, value, triedUpTo: value * 2, past: { kind: 'error', code: -32600, message: 'too many' }, recoveryMs: 0, source: 'measured' };
}

function wallet(name: string, txCount: number, subscribes: number): WalletLine {
  return {
    wallet: name,
    origin: 'synthetic',
    type: 'p2wpkh',
    gap: 20,
    chains: { receive: [], change: [] },
    expected: {
      txCount,
      txCountExact: true,
      balance: { confirmed: 0, unconfirmed: 0 },
      usedScripts: { receive: 1, change: 0 },
      fullSync: { electrum: { 'blockchain.scripthash.subscribe': subscribes }, sparrow: { 'blockchain.scripthash.subscribe': subscribes }, bdk: {} },
    },
  };
}

const electrumWorkload = { name: 'electrum' as const, largestBatch: 1 };

describe("connections per source address: Fulcrum's max_clients_per_ip 12", () => {
  const limits = knownLimits('fulcrum');

  test('20 from one address is over, named with the address, the limit, what happens past it and what to change', () => {
    const lines = diagnose(fulcrum, requestLoadDemands(requests({ connections: 20, testConnections: 20, sourceAddresses: ['127.0.0.2'] })), limits);
    expect(lines).toEqual([
      "fulcrum: 20 connections from 127.0.0.2 (--connections 20 over 1 source address) cross its limit of 12 connections per source address (max_clients_per_ip, Fulcrum's default); past it the server closes the connection unanswered; spread them over 2 source addresses (--source-addresses 127.0.0.2-127.0.0.3) or open at most 12 (--connections 12)",
    ]);
  });

  test('12 from one address, or 20 over two, fit', () => {
    expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 12, sourceAddresses: ['127.0.0.2'] })), limits)).toEqual([]);
    expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 20, sourceAddresses: ['127.0.0.2', '127.0.0.3'] })), limits)).toEqual([]);
  });

  test('25 over two addresses: the one that carries 13 is over', () => {
    const [only] = diagnose(fulcrum, requestLoadDemands(requests({ connections: 25, sourceAddresses: ['127.0.0.2', '127.0.0.3'] })), limits);
    expect(only).toMatch(/^fulcrum: 13 connections from 127\.0\.0\.2 \(--connections 25 over 2 source addresses\) cross/);
    expect(only).toMatch(/--source-addresses 127\.0\.0\.2-127\.0\.0\.4\) or open at most 24/);
  });

  test('from 127.0.0.1, which Fulcrum exempts, any number fits; from the system\'s choice to a loopback server too', () => {
    expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 50, sourceAddresses: ['127.0.0.1'] })), limits)).toEqual([]);
    expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 50 })), limits)).toEqual([]);
  });

  test("to a server elsewhere the system's choice is this machine's address, not exempt", () => {
    const [only] = diagnose(remote, requestLoadDemands(requests({ connections: 13 })), limits);
    expect(only).toMatch(/^far: 13 connections from this machine's address \(--connections 13\) cross its limit of 12/);
  });

  test('many addresses over it are summed up, not listed', () => {
    const sources = Array.from({ length: 8 }, (_, i) => `127.0.1.${i + 1}`);
    const [only] = diagnose(remote, requestLoadDemands(requests({ connections: 104, sourceAddresses: sources })), limits);
    expect(only).toMatch(/13 connections from each of 8 addresses \(127\.0\.1\.1, 127\.0\.1\.2, …\)/);
  });
});

describe("connections in all: ElectrumX's MAX_SESSIONS 1000", () => {
  const target = { name: 'electrumx', host: '127.0.0.1' };
  test('1001 is over, 1000 fits; a sharded test counts every shard', () => {
    expect(diagnose(target, requestLoadDemands(requests({ connections: 1000, testConnections: 1000 })), knownLimits('electrumx'))).toEqual([]);
    const [over] = diagnose(target, requestLoadDemands(requests({ connections: 1001, testConnections: 1001 })), knownLimits('electrumx'));
    expect(over).toMatch(/^electrumx: 1001 connections \(--connections\) cross its limit of 1000 connections in all \(MAX_SESSIONS, ElectrumX 2\.0's default, lowered to fit its open-file limit\); past it the server accepts no new connection; open at most 1000 in all \(--connections 1000\)$/);
    const [sharded] = diagnose(target, requestLoadDemands(requests({ connections: 300, testConnections: 1200 })), knownLimits('electrumx'));
    expect(sharded).toMatch(/1200 connections \(--connections, over every shard\)/);
  });
});

describe("the dataset's largest addresses: Esplora's --electrum-txs-limit and --utxos-limit 500", () => {
  const esplora = { name: 'esplora', host: '127.0.0.1' };
  const lines = [line(3), line(500, 500), line(501, 2), line(900, 600)];

  test('asked for histories: the addresses over 500 are counted and the fix names --max-txs', () => {
    expect(diagnose(esplora, requestLoadDemands(requests({ mix: { history: 1 }, lines })), knownLimits('esplora'))).toEqual([
      `esplora: 2 of the dataset's addresses, asked for their history by --mix, have more than 500 transactions (the largest 900) cross its limit of 500 history entries (--electrum-txs-limit, Esplora's default); past it the server answers an error ("Too many history entries"); leave them out (npm run dataset -- filter --max-txs 500) or drop history from --mix`,
    ]);
  });

  test('asked for UTXOs: the one over 500', () => {
    const [only] = diagnose(esplora, requestLoadDemands(requests({ mix: { utxos: 1 }, lines })), knownLimits('esplora'));
    expect(only).toMatch(/^esplora: 1 of the dataset's addresses, asked for their utxos by --mix, have more than 500 UTXOs \(the largest 600\) cross its limit of 500 UTXOs per address/);
  });

  test('a mix that asks neither, or a dataset of at most 500, crosses nothing', () => {
    expect(diagnose(esplora, requestLoadDemands(requests({ mix: { balance: 1 }, lines })), knownLimits('esplora'))).toEqual([]);
    expect(diagnose(esplora, requestLoadDemands(requests({ mix: { history: 1, utxos: 1 }, lines: [line(500, 500)] })), knownLimits('esplora'))).toEqual([]);
  });
});

describe('wallets', () => {
  const wallets = [wallet('small', 20, 31), wallet('big', 700, 60)];

  test('held wallets are a connection each, from this machine: 13 held on a distant Fulcrum are over', () => {
    const [only] = diagnose(remote, walletDemands({ workload: electrumWorkload, wallets, connections: 13, connectionsFrom: '--hold 13' }), knownLimits('fulcrum'));
    expect(only).toMatch(/^far: 13 connections from this machine's address \(one per wallet, --hold 13\) cross its limit of 12 connections per source address/);
    expect(only).toMatch(/connect at most 12 wallets at once \(now --hold 13\)/);
    expect(diagnose(remote, walletDemands({ workload: electrumWorkload, wallets, connections: 12, connectionsFrom: '--hold 12' }), knownLimits('fulcrum'))).toEqual([]);
  });

  test("a wallet's transactions bound its scripts' histories: over the limit it may cross, and --wallet-max-txs is the fix", () => {
    const [only] = diagnose({ name: 'esplora', host: '127.0.0.1' }, walletDemands({ workload: electrumWorkload, wallets, connections: 0, connectionsFrom: '' }), knownLimits('esplora'));
    expect(only).toMatch(/^esplora: 1 wallet of more than 500 transactions \(the largest, big, 700\) may cross its limit of 500 history entries .*; leave them out \(--wallet-max-txs 500\)$/);
    expect(diagnose({ name: 'esplora', host: '127.0.0.1' }, walletDemands({ workload: electrumWorkload, wallets: [wallets[0]], connections: 0, connectionsFrom: '' }), knownLimits('esplora'))).toEqual([]);
  });

  test('subscriptions on one connection and batch sizes against measured limits', () => {
    const limits = [measured('subscriptions-per-connection', 50), measured('batch-size', 50)];
    const sparrow = diagnose(fulcrum, walletDemands({ workload: { name: 'sparrow', largestBatch: 100 }, wallets, connections: 0, connectionsFrom: '' }), limits);
    expect(sparrow).toEqual([
      expect.stringMatching(/^fulcrum: 1 wallet subscribes more than 50 scripts on one connection \(the largest, big, 60\) cross its limit of 50 subscriptions per connection \(measured by limits\); past it the server answers an error -32600 \("too many"\)/),
      expect.stringMatching(/^fulcrum: the sparrow workload's JSON batches of up to 100 calls cross its limit of 50 calls per batch/),
    ]);
    // Fulcrum's max_batch (345) takes sparrow's pages of 100; a page of 400 it would not.
    expect(diagnose(fulcrum, walletDemands({ workload: { name: 'sparrow', largestBatch: 100 }, wallets, connections: 0, connectionsFrom: '' }), knownLimits('fulcrum'))).toEqual([]);
    expect(diagnose(fulcrum, walletDemands({ workload: { name: 'sparrow', largestBatch: 400 }, wallets, connections: 0, connectionsFrom: '' }), knownLimits('fulcrum'))).toEqual([
      expect.stringMatching(/400 calls cross its limit of 345 calls per batch \(max_batch, Fulcrum's default\); past it the server answers an error 4 \("Batch limit exceeded"\)/),
    ]);
    // The electrum workload sends no JSON batch; its subscriptions are the same wallets'.
    expect(diagnose(fulcrum, walletDemands({ workload: electrumWorkload, wallets, connections: 0, connectionsFrom: '' }), limits)).toHaveLength(1);
    expect(diagnose(fulcrum, walletDemands({ workload: electrumWorkload, wallets: [wallets[0]], connections: 0, connectionsFrom: '' }), limits)).toEqual([]);
  });
});

test('a measured finding rules over a configured one, and a later one of a source over an earlier one', () => {
  const configured = knownLimits('fulcrum');
  const lab = configured.map((f) => (f.limit === 'connections-per-source' ? { ...f, value: 30 } : f));
  expect(rulingFinding([...configured, ...lab], 'connections-per-source')?.value).toBe(30);
  expect(rulingFinding([measured('connections-per-source', 5), ...configured, ...lab], 'connections-per-source')?.value).toBe(5);
  expect(rulingFinding(configured, 'utxo-count')).toBeUndefined();
  // A measured limit of 5 spares what Fulcrum's configuration spares: 6 from the system's choice on
  // loopback (127.0.0.1) are not over it, 6 from 127.0.0.2 are, and without a configured finding
  // nothing is spared.
  expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 6 })), [...configured, measured('connections-per-source', 5)])).toEqual([]);
  expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 6, testConnections: 6, sourceAddresses: ['127.0.0.2'] })), [...configured, measured('connections-per-source', 5)])).toHaveLength(1);
  expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 6 })), [measured('connections-per-source', 5)])).toHaveLength(1);
  // "none up to N tried" is no limit.
  expect(diagnose(fulcrum, requestLoadDemands(requests({ connections: 6 })), [{ ...measured('connections-per-source', 5), value: null }])).toEqual([]);
});

test("loopback however written is the system's own source, as the safety rule reads it", () => {
  const over = (host: string) => diagnose({ name: 'fulcrum', host }, requestLoadDemands(requests({ connections: 13, testConnections: 13 })), [measured('connections-per-source', 12)])[0] ?? '';
  for (const host of ['127.0.0.1', '127.0.0.9', 'LOCALHOST', '::ffff:127.0.0.1']) expect([host, over(host)]).toEqual([host, expect.stringContaining('13 connections from 127.0.0.1 ')]);
  for (const host of ['::1', '0:0:0:0:0:0:0:1', '[::1]']) expect([host, over(host)]).toEqual([host, expect.stringContaining('13 connections from ::1 ')]);
  expect(over('192.0.2.7')).toContain("13 connections from this machine's address");
});

test('subnets: IPv4 prefixes, single addresses, IPv6 by address', () => {
  expect(isExempt('127.0.0.1', ['127.0.0.1/32', '::1/128'])).toBe(true);
  expect(isExempt('127.0.0.2', ['127.0.0.1/32', '::1/128'])).toBe(false);
  expect(isExempt('127.0.0.2', ['127.0.0.0/8'])).toBe(true);
  expect(isExempt('10.1.2.3', ['10.1.0.0/16'])).toBe(true);
  expect(isExempt('10.2.2.3', ['10.1.0.0/16'])).toBe(false);
  expect(isExempt('192.168.0.7', ['192.168.0.7'])).toBe(true);
  expect(isExempt('::1', ['127.0.0.1/32', '::1/128'])).toBe(true);
  expect(isExempt('127.0.0.2', [])).toBe(false);
});

describe('preflight', () => {
  const plan = requestLoadDemands(requests({ connections: 20, testConnections: 1200, sourceAddresses: ['127.0.0.2'] }));
  const limits = new Map([
    ['fulcrum', knownLimits('fulcrum')],
    ['electrumx', knownLimits('electrumx')],
  ]);
  const targets = [fulcrum, { name: 'electrumx', host: '127.0.0.1' }];

  test('by default: each line a warning, returned to be recorded, and the run goes on', () => {
    const logged: string[] = [];
    const lines = preflight(targets, plan, limits, false, (l) => logged.push(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^fulcrum: 20 connections from 127\.0\.0\.2/);
    expect(lines[1]).toMatch(/^electrumx: 1200 connections/);
    expect(logged).toEqual(lines.map((l) => `electrum-bench: warning: ${l} (--strict-limits refuses such a run)`));
  });

  test('--strict-limits: a user error of one line per limit crossed, nothing logged', () => {
    const logged: string[] = [];
    let thrown: unknown;
    try {
      preflight(targets, plan, limits, true, (l) => logged.push(l));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(PlanOverLimits);
    expect(isUserError(thrown)).toBe(true);
    const lines = (thrown as PlanOverLimits).lines;
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.startsWith('--strict-limits: '))).toBe(true);
    expect(logged).toEqual([]);
  });

  test('a plan under every limit, or a server of which nothing is known, passes silently even with --strict-limits', () => {
    const logged: string[] = [];
    expect(preflight(targets, requestLoadDemands(requests()), limits, true, (l) => logged.push(l))).toEqual([]);
    expect(preflight([{ name: 'other', host: '127.0.0.1' }], plan, limits, true, (l) => logged.push(l))).toEqual([]);
    expect(logged).toEqual([]);
  });
});
