/** Phases from timed log lines, and the medians of repeated builds. */
import { phasesOf } from '../../../src/indexing/phases';
import { summarizeBuilds, type IndexBuild } from '../../../src/core/index-builds';
import { electrumx } from '../../../src/lab/servers/electrumx';
import { fulcrum } from '../../../src/lab/servers/fulcrum';

test('a matching line starts its phase; repeats of one phase merge; the last runs to ready', () => {
  const lines = [
    { atMs: 10, line: 'INFO:electrumx:ElectrumX server starting.' },
    { atMs: 200, line: 'INFO:Prefetcher:catching up to daemon height 469 (470 blocks behind)' },
    { atMs: 250, line: 'INFO:BlockProcessor:our height: 9 daemon: 469' },
    { atMs: 600, line: 'INFO:BlockProcessor:caught up to height 469' },
    { atMs: 900, line: 'INFO:BlockProcessor:caught up to height 469' },
  ];
  expect(phasesOf(electrumx.index.phases, lines, 700)).toEqual([
    { name: 'start-up', startMs: 0, endMs: 200 },
    { name: 'indexing blocks', startMs: 200, endMs: 600 },
    { name: 'flushing and opening listeners', startMs: 600, endMs: 700 },
  ]);
  expect(phasesOf(fulcrum.index.phases, [], 500)).toEqual([{ name: 'start-up', startMs: 0, endMs: 500 }]);
});

test('the summary is the median build, with each phase its median share of the median time', () => {
  const build = (indexMs: number, cpuS: number): IndexBuild => ({
    server: 'fulcrum',
    settings: {},
    repeat: 1,
    indexMs,
    cpuS,
    peakRssBytes: 100,
    readBytes: 0,
    writeBytes: 10,
    datadirBytes: 50,
    phases: [
      { name: 'start-up', startMs: 0, endMs: indexMs / 2 },
      { name: 'downloading and indexing blocks', startMs: indexMs / 2, endMs: indexMs },
    ],
  });
  const [s] = summarizeBuilds([build(400, 1), build(1000, 9), build(600, 2)]);
  expect(s).toMatchObject({ builds: 3, indexMs: 600, cpuS: 2, datadirBytes: 50 });
  expect(s.phases.map((p) => [p.name, p.ms, p.share])).toEqual([
    ['start-up', 300, 0.5],
    ['downloading and indexing blocks', 300, 0.5],
  ]);
});
