/**
 * Time to synced of the `bdk` workload against the real BDK (PyPI bdkpython, installed by
 * `scripts/install-lab.sh bdk`) in the same run: per lab server and wallet size, both sync the same
 * wallet from scratch, in rounds (real client, then workload, then the other way round), each
 * round's first sync of either a warm-up. Prints each side's median, their ratio (workload ÷ real)
 * and each round's ratio as the spread.
 *
 *   npx tsx bench/wallet-clients.ts [--sizes 10,100,400] [--syncs 5] [--rounds 2] [--servers electrumx,electrs,esplora,fulcrum]
 *
 * The lab must be up. The real client's time runs from opening its Electrum client to the end of its
 * full scan (bdk_sync.py); the workload's from before its TCP connect to its last reply.
 */
import { labStatus } from '../src/lab/lab';
import { VERSIONS } from '../src/lab/config';
import { bdkSyncs } from '../src/lab/clients/bdk';
import { readWallets } from '../src/dataset/wallet-file';
import { syncWallet } from '../src/wallet/sync';
import { workloadNamed } from '../src/wallet/workloads';
import { medianOfUnsorted } from '../src/core/quantiles';
import { textTable } from '../src/core/text-table';
import type { WalletLine } from '../src/core/wallet-line';
import { flag } from './args';

const SIZES = flag('sizes', '10,100,400').split(',').map(Number);
const SYNCS = Number(flag('syncs', '5'));
const ROUNDS = Number(flag('rounds', '2'));
const SERVERS = flag('servers', 'electrumx,electrs,esplora,fulcrum').split(',');

async function realSyncs(url: string, w: WalletLine, n: number): Promise<number[]> {
  const runs = await bdkSyncs(url, w, n);
  for (const r of runs) if (r.confirmed !== w.expected.balance.confirmed || r.txs !== w.expected.txCount) throw new Error(`real BDK on ${url} found ${r.txs} txs / ${r.confirmed} sat in ${w.wallet}`);
  return runs.map((r) => r.ms);
}

async function workloadSyncs(host: string, port: number, w: WalletLine, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = await syncWallet(workloadNamed('bdk'), w, { connection: { host, port, timeoutMs: 60_000 }, verify: true });
    if (r.status !== 'ok' || r.mismatch?.length) throw new Error(`bdk workload on ${host}:${port} ${w.wallet}: ${r.status} ${r.error ?? r.mismatch?.join('; ')}`);
    out.push(Number(r.durationNs) / 1e6);
  }
  return out;
}

async function main(): Promise<void> {
  const lab = await labStatus();
  const wallets = readWallets(lab.walletsPath).wallets;
  const rows: string[][] = [];
  for (const name of SERVERS) {
    const server = lab.electrum[name as keyof typeof lab.electrum];
    if (!server?.running) throw new Error(`no running lab server ${name} (npm run lab -- up)`);
    for (const size of SIZES) {
      const w = wallets.find((x) => x.expected.txCount === size && x.descriptors);
      if (!w) throw new Error(`no lab wallet of ${size} transactions`);
      const real: number[] = [];
      const ours: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Each side's first sync of a round warms the server's caches and is left out; the side
        // that goes first alternates by round.
        const realSide = async () => (await realSyncs(`tcp://${server.host}:${server.port}`, w, SYNCS + 1)).slice(1);
        const ourSide = async () => (await workloadSyncs(server.host, server.port, w, SYNCS + 1)).slice(1);
        let r: number[];
        let o: number[];
        if (round % 2 === 0) {
          r = await realSide();
          o = await ourSide();
        } else {
          o = await ourSide();
          r = await realSide();
        }
        real.push(...r);
        ours.push(...o);
        ratios.push(medianOfUnsorted(o)! / medianOfUnsorted(r)!);
      }
      const [mr, mo] = [medianOfUnsorted(real)!, medianOfUnsorted(ours)!];
      rows.push([name, String(size), mr.toFixed(1), mo.toFixed(1), (mo / mr).toFixed(2), ratios.map((x) => x.toFixed(2)).join(' ')]);
      process.stderr.write(`${name} ${size} tx: real ${mr.toFixed(1)} ms, workload ${mo.toFixed(1)} ms\n`);
    }
  }
  console.log(`bdk workload against bdkpython ${VERSIONS.bdkpython}, ${ROUNDS} rounds × ${SYNCS} counted syncs a side`);
  console.log(textTable(['server', 'wallet txs', 'real ms (median)', 'workload ms (median)', 'workload ÷ real', 'per round'], rows, { align: ['left', 'right', 'right', 'right', 'right', 'left'] }));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
