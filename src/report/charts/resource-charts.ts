/**
 * Resource charts: per bench run, each sampled process's CPU, memory and disk traffic over time
 * (three panels on one time axis); per index-bench run, each server's build time split into the
 * phases its log showed, and, for a sweep, time and peak memory per setting value.
 */
import type { IndexRunReport, ResourceRunReport } from '../resources';
import { colourScale } from './palette';
import { chartConfig, VEGA_LITE_SCHEMA } from './style';

type Spec = Record<string, unknown>;

export function resourceSpec(r: ResourceRunReport, title: string): Spec {
  const targets = [...new Set(r.points.map((p) => p.target))];
  const colour = { field: 'target', type: 'nominal', scale: colourScale(targets, targets), legend: { title: 'process', symbolType: 'stroke' } };
  const panel = (field: string, yTitle: string): Spec => ({
    width: 640,
    height: 140,
    mark: { type: 'line', strokeWidth: 1.5 },
    encoding: {
      x: { field: 't', type: 'quantitative', title: 'seconds since the run began' },
      y: { field, type: 'quantitative', title: yTitle },
      color: colour,
    },
    transform: [{ filter: `datum.${field} !== null` }],
  });
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle: ['each process with its children, sampled from /proc beside the run'], anchor: 'start', subtitleFontSize: 11 },
    data: { values: r.points },
    config: chartConfig(),
    vconcat: [panel('cpuPercent', 'CPU % of one core'), panel('rssMiB', 'RSS (MiB)'), panel('readMiBs', 'disk read (MiB/s)'), panel('writeMiBs', 'disk write (MiB/s)')],
  };
}

export function indexPhasesSpec(r: IndexRunReport, title: string): Spec {
  const values = r.summaries.flatMap((s) => {
    const label = s.server + (Object.keys(s.settings).length ? ` ${Object.entries(s.settings).map(([k, v]) => `${k}=${v}`).join(' ')}` : '');
    let at = 0;
    return s.phases.map((p, order) => {
      const v = { build: label, phase: p.name, order, start: at / 1000, end: (at + p.ms) / 1000, share: Math.round(p.share * 100) };
      at += p.ms;
      return v;
    });
  });
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle: ['median duration of each phase, in the order the server went through them'], anchor: 'start', subtitleFontSize: 11 },
    data: { values },
    config: chartConfig(),
    width: 640,
    height: { step: 28 },
    mark: { type: 'bar', stroke: 'white', strokeWidth: 1 },
    encoding: {
      y: { field: 'build', type: 'nominal', title: null, sort: null },
      x: { field: 'start', type: 'quantitative', title: 'seconds from an empty data directory' },
      x2: { field: 'end' },
      color: { field: 'phase', type: 'nominal', legend: { title: 'phase', orient: 'bottom', columns: 2, labelLimit: 320 } },
      tooltip: [{ field: 'phase' }, { field: 'share', title: '% of the build' }],
    },
  };
}

export function sweepSpec(r: IndexRunReport, title: string): Spec {
  const name = r.sweep!.name;
  const values = r.summaries.flatMap((s) => [
    { server: s.server, value: s.settings[name], measure: 'time to tip (s)', y: s.indexMs / 1000 },
    ...(s.peakRssBytes === null ? [] : [{ server: s.server, value: s.settings[name], measure: 'peak RSS (MiB)', y: s.peakRssBytes / (1024 * 1024) }]),
  ]);
  const servers = [...new Set(values.map((v) => v.server))];
  return {
    $schema: VEGA_LITE_SCHEMA,
    title: { text: title, subtitle: [`one set of builds per value of ${name}; medians`], anchor: 'start', subtitleFontSize: 11 },
    data: { values },
    config: chartConfig(),
    facet: { column: { field: 'measure', type: 'nominal', title: null } },
    resolve: { scale: { y: 'independent' } },
    spec: {
      width: 300,
      height: 220,
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'value', type: 'ordinal', title: name, sort: r.sweep!.values },
        y: { field: 'y', type: 'quantitative', title: null },
        color: { field: 'server', type: 'nominal', scale: colourScale(servers, servers) },
      },
    },
  };
}
