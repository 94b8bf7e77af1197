/**
 * Report rendering cost against the number of points: 1k, 10k and 100k per-address medians
 * (synthetic, two servers), each chart built and rendered to SVG and PNG. Prints the time per
 * point at each size and its ratio to the smallest size: about 1 means linear.
 * Usage: npx tsx bench/report-render.ts
 */
import { CHARTS } from '../src/report/charts/definitions';
import { chartSpec } from '../src/report/charts/spec';
import { renderPng, renderSvg } from '../src/report/render';
import type { MedianPoint, ReportModel } from '../src/report/model';
import { seededRandom } from '../src/random';

function syntheticModel(points: number): ReportModel {
  const rand = seededRandom(`report-render:${points}`);
  const servers = ['server-a', 'server-b'];
  const list: MedianPoint[] = [];
  for (let i = 0; i < points; i++) {
    const server = servers[i % 2];
    const txCount = Math.floor(10 ** (1 + rand() * 3));
    list.push({
      server,
      method: 'history',
      addressIdx: i,
      address: null,
      scripthash: i.toString(16).padStart(64, '0'),
      type: 'p2wpkh',
      txCount,
      utxoCount: Math.floor(txCount * rand()),
      medianMs: 0.5 + txCount * (server === 'server-a' ? 0.01 : 0.2) * (0.8 + 0.4 * rand()),
      nOk: 9,
      nError: 0,
    });
  }
  return {
    dbPath: ':synthetic:',
    runs: [],
    servers: servers.map((label) => ({ label }) as ReportModel['servers'][number]),
    points: list,
    errors: [],
    summaries: [],
  };
}

async function timeRender(points: number): Promise<number> {
  const model = syntheticModel(points);
  const def = CHARTS.find((c) => c.id === 'history-vs-txcount')!;
  const t0 = process.hrtime.bigint();
  const svg = await renderSvg(chartSpec(model, def, { logX: true, logY: false, facet: false }));
  renderPng(svg, 1);
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

async function main() {
  await timeRender(1000); // warm-up: module loading and JIT
  const sizes = [1000, 10_000, 100_000];
  const perPoint: number[] = [];
  console.log('points    total ms   µs/point   ratio to 1k');
  for (const n of sizes) {
    const ms = await timeRender(n);
    perPoint.push((ms * 1000) / n);
    const ratio = perPoint[perPoint.length - 1] / perPoint[0];
    console.log(`${String(n).padStart(7)}  ${ms.toFixed(0).padStart(9)}  ${perPoint[perPoint.length - 1].toFixed(1).padStart(9)}  ${ratio.toFixed(2).padStart(11)}`);
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
