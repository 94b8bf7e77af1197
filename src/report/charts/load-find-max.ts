/**
 * The find-max search, step by step: achieved throughput against p99 latency, the SLO as a
 * horizontal rule and each server's maximum sustainable rate as a vertical one. Where the curve
 * crosses the rule is the capacity the search reports.
 */
import { fmtRate } from '../../core/rate-text';
import { latencyScale } from './scales';
import { LoadChartDef, loadSpec, serverColour, Spec } from './load-chart';

export const loadFindMax: LoadChartDef = {
  suffix: 'find-max',
  title: 'Find-max: p99 latency vs achieved throughput per step',
  applies: (run) => run.findMax !== null,
  spec: (run, title, opts) => {
    const known = new Set(run.servers.map((s) => s.label));
    const entries = (run.findMax ?? []).filter((e) => known.has(e.server));
    // The rule is the SLO's bound, so the points must be the SLO's percentile: p99 unless the search used another.
    const p99Only = entries.every((e) => e.slo.percentile === 99);
    const values: Spec[] = [];
    const latencies: number[] = [];
    for (const e of entries) {
      for (const st of e.steps) {
        const ms = e.slo.percentile === 99 ? st.p99Ms : (st.sloValueMs ?? null);
        if (ms === null) continue;
        latencies.push(ms);
        values.push({
          layer: 'step',
          server: e.server,
          step: st.step,
          achieved: st.achievedRate,
          ms,
          verdict: st.passed ? 'within SLO' : 'over SLO',
          label:
            `${e.server}: step ${st.step}${st.phase ? ` (${st.phase})` : ''}, target ${fmtRate(st.targetRate)}/s, achieved ${fmtRate(st.achievedRate)}/s, ` +
            `p${e.slo.percentile} ${ms.toFixed(3)} ms, errors ${(100 * st.errorRate).toFixed(2)}%`,
        });
      }
      if (e.maxSustainableRate !== null) {
        // A server that went down mid-search passed that rate once; it was not shown to sustain it.
        const said = e.limitedBy === 'server-down' ? `${fmtRate(e.maxSustainableRate)}/s passed before it went down` : `max sustainable ${fmtRate(e.maxSustainableRate)}/s`;
        values.push({ layer: 'max', server: e.server, achieved: e.maxSustainableRate, label: `${e.server}: ${said}` });
      }
    }
    const slos = [...new Map(entries.map((e) => [`${e.slo.percentile}:${e.slo.thresholdMs}`, e.slo])).values()];
    for (const slo of slos) {
      latencies.push(slo.thresholdMs);
      values.push({ layer: 'slo', ms: slo.thresholdMs, label: `SLO: p${slo.percentile} ≤ ${slo.thresholdMs} ms` });
    }
    const ys = latencyScale(latencies, opts.logY);
    const yTitle = p99Only ? 'p99 latency' : "latency at the SLO's percentile";
    const y = { field: 'ms', type: 'quantitative', title: `${yTitle} (ms${opts.logY ? ', log' : ''})`, scale: ys.scale };
    const x = { field: 'achieved', type: 'quantitative', title: 'achieved throughput (replies/s)' };
    const only = (layer: string) => [{ filter: `datum.layer === ${JSON.stringify(layer)}` }];
    const maxima = entries.map((e) =>
      typeof e.statement === 'string' ? e.statement : `${e.server}: ${e.maxSustainableRate === null ? 'no step met the SLO' : `max sustainable ${fmtRate(e.maxSustainableRate)}/s`}`,
    );
    const subtitle = [
      `one point per step (cross: over the SLO) · grey rule: ${slos.map((s) => `SLO p${s.percentile} ≤ ${s.thresholdMs} ms`).join(', ') || 'no SLO'} · dashed: max sustainable rate${entries.some((e) => e.limitedBy === 'server-down') ? ' (or the highest passed before the server went down)' : ''}`,
      ...maxima,
    ];
    return loadSpec(title, subtitle, values, {
      layer: [
        { transform: only('step'), mark: { type: 'line', strokeWidth: 1.5 }, encoding: { x, y, order: { field: 'achieved', type: 'quantitative' }, color: serverColour(run) } },
        {
          transform: only('step'),
          mark: { type: 'point', filled: true, size: 60, opacity: 0.9 },
          encoding: {
            x,
            y,
            color: serverColour(run),
            shape: { field: 'verdict', type: 'nominal', scale: { domain: ['within SLO', 'over SLO'], range: ['circle', 'cross'] }, legend: { title: 'step' } },
            description: { field: 'label' },
          },
        },
        { transform: only('slo'), mark: { type: 'rule', color: '#777', strokeWidth: 1.5 }, encoding: { y, description: { field: 'label' } } },
        {
          transform: only('slo'),
          mark: { type: 'text', align: 'left', dx: 4, dy: -7, fontSize: 11, color: '#555' },
          encoding: { y, x: { value: 0 }, text: { field: 'label' } },
        },
        {
          transform: only('max'),
          mark: { type: 'rule', strokeDash: [6, 4], strokeWidth: 1.5 },
          encoding: { x, color: serverColour(run), description: { field: 'label' } },
        },
      ],
    });
  },
};
