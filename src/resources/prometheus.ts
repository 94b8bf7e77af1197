/**
 * The Prometheus text format a server's monitoring port serves (electrs `--monitoring-addr`,
 * Esplora's, Fulcrum's stats are JSON and not this): one scrape, the series whose names match.
 */
import http from 'node:http';
import { ElectrumError } from '../electrum/errors';

import type { MetricSample } from '../core/resource-row';
export type { MetricSample };

/** `name{labels} value [timestamp]` lines; comments and NaN/Inf values are skipped. */
export function parsePrometheusText(text: string, match: RegExp): MetricSample[] {
  const out: MetricSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?)\s+(\S+)/.exec(line);
    if (!m || !match.test(m[1])) continue;
    const value = Number(m[2]);
    if (Number.isFinite(value)) out.push({ name: m[1], value });
  }
  return out;
}

export function scrapePrometheus(url: string, match: RegExp, timeoutMs = 2_000): Promise<MetricSample[]> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { timeout: timeoutMs }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        if (res.statusCode !== 200) return reject(new ElectrumError('server-error', `${url}: HTTP ${res.statusCode}`));
        resolve(parsePrometheusText(Buffer.concat(chunks).toString('utf8'), match));
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new ElectrumError('timeout', `${url}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}
