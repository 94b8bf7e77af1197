/**
 * A request load's options for the unit tests' runs against servers of their own on loopback:
 * every field a test does not set at the value most of them use, so that each test states only
 * what it is about.
 */
import type { LoadOptions } from '../../src/engine/runner';
import type { ServerTarget } from '../../src/servers/targets';
import type { DatasetLine } from '../../src/core/dataset-line';

/** A plain-TCP server on 127.0.0.1, of the generic profile. */
export function localTarget(port: number, name = 's'): ServerTarget {
  return { name, profile: 'generic', host: '127.0.0.1', port, tls: false };
}

export function loadOptions(servers: ServerTarget[], lines: DatasetLine[], set: Partial<LoadOptions> = {}): LoadOptions {
  return {
    servers,
    lines,
    mix: { balance: 1, history: 1, utxos: 1 },
    model: { kind: 'rate', rate: 100 },
    durationMs: 2000,
    connections: 2,
    pipeline: 4,
    timeoutMs: 5000,
    maxLineBytes: 1 << 20,
    tlsInsecure: false,
    seed: 't',
    sourceAddresses: [],
    samples: false,
    ...set,
  };
}
