/**
 * Time to synced of a workload against the real wallet it follows, in the same run: per lab server
 * and wallet size, both sync the same wallet from scratch, in rounds (real client, then workload,
 * then the other way round), each side's first sync of a round a warm-up. Prints each side's
 * median and mean, their ratios (workload ÷ real) and each round's ratio of means as the spread.
 * Electrum's times are bimodal (a sync whose last requests wait a second in its send buffer, or
 * not): its median jumps between the modes, its mean does not.
 *
 *   npx tsx bench/wallet-clients.ts [--client bdk|electrum] [--on-wire] [--sizes …] [--syncs 5] [--rounds 2] [--servers …]
 *
 * The lab must be up.
 * - bdk (default; sizes 10,100,400, every lab server): the real BDK (bdkpython) is timed from
 *   opening its Electrum client to the end of its full scan (bdk_sync.py), the workload from before
 *   its TCP connect to its last reply; both straight to the server. With --on-wire both go
 *   through the recording proxy and are timed on its clock, as below: the client's own work before
 *   its first request and after its last reply left out.
 * - electrum (sizes 5,50,200, the wallets Electrum restores; ElectrumX, electrs and Fulcrum — it
 *   does not use Esplora's electrs, which lacks server.features): both go through the recording
 *   proxy and are timed on its clock the same way, from the connection's start to the last reply
 *   before synced. Electrum's connection is held at the proxy while its daemon starts and loads
 *   the wallet, and timed from its release, so Python's start-up does not count.
 */
import { labStatus } from '../src/lab/lab';
import { VERSIONS } from '../src/lab/config';
import { bdkSyncs } from '../src/lab/clients/bdk';
import { RealElectrum, electrumCannotRestore } from '../src/lab/clients/electrum';
import { WireRecorder } from '../src/lab/wire-recorder';
import { readWallets } from '../src/dataset/wallet-file';
import { syncWallet } from '../src/wallet/sync';
import { workloadNamed } from '../src/wallet/workloads';
import { medianOfUnsorted } from '../src/core/quantiles';
import { textTable } from '../src/core/text-table';
import type { WalletLine } from '../src/core/wallet-line';
import { flag } from './args';

interface Endpoint {
  host: string;
  port: number;
}

/** One sync's time in ms, and on the proxy's clock the part of it with nothing in flight (the client's own). */
interface Timed {
  ms: number;
  idleMs?: number;
}

/** One server's pair of sides: n syncs of a wallet each, timed. */
interface Sides {
  real(w: WalletLine, n: number): Promise<Timed[]>;
  ours(w: WalletLine, n: number): Promise<Timed[]>;
  close(): Promise<void>;
}

interface Client {
  title: string;
  sizes: string;
  servers: string;
  fits(w: WalletLine): boolean;
  open(server: Endpoint): Promise<Sides>;
}

const ON_WIRE = process.argv.includes('--on-wire');

const CLIENTS: Record<string, Client> = {
  bdk: {
    title: `bdk workload against bdkpython ${VERSIONS.bdkpython}${ON_WIRE ? ", both timed on the recording proxy's clock" : ''}`,
    sizes: '10,100,400',
    servers: 'electrumx,electrs,esplora,fulcrum',
    fits: (w) => !!w.descriptors,
    open: async (server) => {
      // --on-wire: both through the recording proxy, each sync timed from its connection's start
      // to its last reply, so what either side does before connecting or after its last reply
      // is left out of both; what each does between an answer and its next write is counted.
      const recorder = ON_WIRE ? await WireRecorder.start(server) : undefined;
      const via = recorder ? { host: '127.0.0.1', port: recorder.port } : server;
      const spans = (from: number, n: number): Timed[] => {
        if (recorder!.connectionCount !== from + n) throw new Error(`${n} syncs made ${recorder!.connectionCount - from} connections`);
        return Array.from({ length: n }, (_, i) => ({ ms: recorder!.spanMs(from + i), idleMs: recorder!.splitMs(from + i).idleMs }));
      };
      return {
        real: async (w, n) => {
          const from = recorder?.connectionCount ?? 0;
          recorder?.clear();
          const runs = await bdkSyncs(`tcp://${via.host}:${via.port}`, w, n);
          for (const r of runs) if (r.confirmed !== w.expected.balance.confirmed || r.txs !== w.expected.txCount) throw new Error(`real BDK on ${server.port} found ${r.txs} txs / ${r.confirmed} sat in ${w.wallet}`);
          return recorder ? spans(from, n) : runs.map((r) => ({ ms: r.ms }));
        },
        ours: async (w, n) => {
          const from = recorder?.connectionCount ?? 0;
          recorder?.clear();
          const out: Timed[] = [];
          for (let i = 0; i < n; i++) out.push({ ms: Number((await workloadSync('bdk', via, w)).durationNs) / 1e6 });
          return recorder ? spans(from, n) : out;
        },
        close: async () => recorder?.close(),
      };
    },
  },
  electrum: {
    title: `electrum workload against Electrum ${VERSIONS.electrum}, both timed on the recording proxy's clock`,
    sizes: '5,50,200',
    servers: 'electrumx,electrs,fulcrum',
    fits: (w) => electrumCannotRestore(w) === null,
    open: async (server) => {
      const recorder = await WireRecorder.start(server);
      const electrum = await RealElectrum.start(recorder);
      const proxied = { host: '127.0.0.1', port: recorder.port };
      return {
        real: async (w, n) => {
          const out: Timed[] = [];
          for (let i = 0; i < n; i++) {
            recorder.clear();
            const r = await electrum.sync(w);
            if (r.confirmed !== w.expected.balance.confirmed || r.txs !== w.expected.txCount) throw new Error(`Electrum on ${server.port} found ${r.txs} txs / ${r.confirmed} sat in ${w.wallet}`);
            out.push({ ms: r.ms });
          }
          return out;
        },
        ours: async (w, n) => {
          const out: Timed[] = [];
          for (let i = 0; i < n; i++) {
            recorder.clear();
            const connection = recorder.connectionCount;
            await workloadSync('electrum', proxied, w);
            out.push({ ms: recorder.spanMs(connection) });
          }
          return out;
        },
        close: async () => {
          electrum.close();
          await recorder.close();
        },
      };
    },
  },
};

const CLIENT = flag('client', 'bdk');
if (!(CLIENT in CLIENTS)) {
  console.error(`--client: ${CLIENT} is not one of ${Object.keys(CLIENTS).join(', ')}`);
  process.exit(2);
}
const client = CLIENTS[CLIENT];
const SIZES = flag('sizes', client.sizes).split(',').map(Number);
const SYNCS = Number(flag('syncs', '5'));
const ROUNDS = Number(flag('rounds', '2'));
const SERVERS = flag('servers', client.servers).split(',');

async function workloadSync(name: string, server: Endpoint, w: WalletLine) {
  const r = await syncWallet(workloadNamed(name), w, { connection: { host: server.host, port: server.port, timeoutMs: 60_000 }, verify: true });
  if (r.status !== 'ok' || r.mismatch?.length) throw new Error(`${name} workload on ${server.host}:${server.port} ${w.wallet}: ${r.status} ${r.error ?? r.mismatch?.join('; ')}`);
  return r;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

async function main(): Promise<void> {
  const lab = await labStatus();
  const wallets = readWallets(lab.walletsPath).wallets;
  const rows: string[][] = [];
  for (const name of SERVERS) {
    const server = lab.electrum[name as keyof typeof lab.electrum];
    if (!server?.running) throw new Error(`no running lab server ${name} (npm run lab -- up)`);
    const sides = await client.open(server);
    try {
      for (const size of SIZES) {
        const w = wallets.find((x) => x.expected.txCount === size && client.fits(x));
        if (!w) throw new Error(`no lab wallet of ${size} transactions for ${CLIENT}`);
        const real: Timed[] = [];
        const ours: Timed[] = [];
        const ratios: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          // Each side's first sync of a round warms the server's caches and is left out; the side
          // that goes first alternates by round.
          const realSide = async () => (await sides.real(w, SYNCS + 1)).slice(1);
          const ourSide = async () => (await sides.ours(w, SYNCS + 1)).slice(1);
          let r: Timed[];
          let o: Timed[];
          if (round % 2 === 0) {
            r = await realSide();
            o = await ourSide();
          } else {
            o = await ourSide();
            r = await realSide();
          }
          real.push(...r);
          ours.push(...o);
          ratios.push(mean(o.map((x) => x.ms)) / mean(r.map((x) => x.ms)));
        }
        const [mr, mo] = [medianOfUnsorted(real.map((x) => x.ms))!, medianOfUnsorted(ours.map((x) => x.ms))!];
        const [ar, ao] = [mean(real.map((x) => x.ms)), mean(ours.map((x) => x.ms))];
        const idle = (xs: Timed[]) => (xs[0]?.idleMs === undefined ? 'n/a' : mean(xs.map((x) => x.idleMs!)).toFixed(1));
        const row = [name, String(size), mr.toFixed(1), ar.toFixed(1), mo.toFixed(1), ao.toFixed(1), (mo / mr).toFixed(2), (ao / ar).toFixed(2), ratios.map((x) => x.toFixed(2)).join(' ')];
        if (real[0]?.idleMs !== undefined) row.push(`${idle(real)} / ${idle(ours)}`);
        rows.push(row);
        process.stderr.write(`${name} ${size} tx: real ${mr.toFixed(1)} / ${ar.toFixed(1)} ms, workload ${mo.toFixed(1)} / ${ao.toFixed(1)} ms (median / mean)\n`);
      }
    } finally {
      await sides.close();
    }
  }
  console.log(`${client.title}, ${ROUNDS} rounds × ${SYNCS} counted syncs a side`);
  const head = ['server', 'wallet txs', 'real ms median', 'real ms mean', 'workload ms median', 'workload ms mean', '÷ medians', '÷ means', 'per round (means)'];
  const align: Array<'left' | 'right'> = ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'left'];
  // The client's own time on the proxy's clock: a sync's time with nothing of it in flight.
  if (rows[0]?.length > head.length) {
    head.push('nothing in flight ms (real / workload, means)');
    align.push('right');
  }
  console.log(textTable(head, rows, { align }));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
