/**
 * `--dashboard [[HOST:]PORT]`: a page on 127.0.0.1:5665 (k6's port) that follows the run second by
 * second over server-sent events, and `--dashboard-export FILE`: the same page with the whole run
 * inside, written at the end, that opens anywhere without a server. Both work offline: the page is
 * one file with its script and styles, no CDN. The dashboard is an output: it only listens.
 *
 * Endpoints: `/` the page, `/events` the stream (a `snapshot` of the run so far on connect, an
 * `interval` per closed second, an `end` with the run's status), `/run.json` the run so far.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { AnyIntervalRecord } from '../../../core/load-types';
import { claimOutputFile } from '../../../core/output-path';
import { UserError } from '../../../core/user-error';
import { writeFileAtomic } from '../../../core/atomic-write';
import type { LiveState, Output, RunContext, ThresholdState } from '../output';
import { RunViewKeeper, type RunView } from './run-view';

export const DEFAULT_DASHBOARD_PORT = 5665;
const PAGE_FILE = path.join(__dirname, 'page.html');
/** The stream says it is alive this often, so proxies and the browser keep it open. */
const HEARTBEAT_MS = 15_000;

export interface DashboardOptions {
  /** Where the page is served; undefined: no live page (an export alone). */
  listen?: { host: string; port: number };
  exportFile?: string;
  title: string;
}

/** `--dashboard` values: '' (the default port), PORT or HOST:PORT; every problem named. */
export function parseDashboardAddress(text: string, problems: string[]): { host: string; port: number } | undefined {
  const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(text.trim());
  if (text.trim() === '') return { host: '127.0.0.1', port: DEFAULT_DASHBOARD_PORT };
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    problems.push(`--dashboard ${JSON.stringify(text)}: expected PORT or HOST:PORT (e.g. 5665, 127.0.0.1:5665 or [::1]:5665; 0 picks a free port)`);
    return undefined;
  }
  return { host: m[1]?.replace(/^\[(.*)\]$/, '$1') ?? '127.0.0.1', port };
}

/** The page with `view` inside (the export), or with none (the live page, which connects for it). */
function dashboardPage(view: RunView | null): string {
  // Read once per process: the live page is asked for while a run is being measured.
  pageText ??= fs.readFileSync(PAGE_FILE, 'utf8');
  // `<` escaped so nothing in a server's name can close the script element.
  const data = view === null ? 'null' : JSON.stringify(view).replace(/</g, '\\u003c');
  const page = pageText.replace('/*RUN_DATA*/null', () => data);
  return view === null ? page : page.replace('<title>electrum-bench</title>', () => `<title>${escapeHtml(view.title)} — electrum-bench</title>`);
}

let pageText: string | undefined;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
}

export class Dashboard implements Output {
  private readonly keeper: RunViewKeeper;
  private server: http.Server | undefined;
  private readonly clients = new Set<http.ServerResponse>();
  private heartbeat: NodeJS.Timeout | undefined;
  /** The URL the page is served at, once open. */
  url: string | undefined;

  constructor(private readonly opts: DashboardOptions) {
    this.keeper = new RunViewKeeper(opts.title);
    if (opts.exportFile) claimOutputFile(opts.exportFile, '--dashboard-export');
  }

  async open(): Promise<void> {
    const listen = this.opts.listen;
    if (!listen) return;
    const server = http.createServer((req, res) => this.serve(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (err: NodeJS.ErrnoException) =>
        reject(new UserError(`--dashboard ${listen.host}:${listen.port}: cannot listen there (${err.code === 'EADDRINUSE' ? 'the port is in use' : err.message})`)),
      );
      server.listen(listen.port, listen.host, () => resolve());
    });
    this.server = server;
    const port = (server.address() as AddressInfo).port;
    this.url = `http://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${port}/`;
    this.heartbeat = setInterval(() => this.broadcast(': alive\n\n'), HEARTBEAT_MS).unref();
    process.stderr.write(`dashboard: ${this.url}\n`);
  }

  start(context: RunContext): void {
    this.keeper.start(context);
  }

  interval(record: AnyIntervalRecord, live?: LiveState): void {
    const { server, point } = this.keeper.add(record, live);
    if (this.clients.size) this.send('interval', { server: server.server, point, totals: server.totals, units: server.units, progress: server.progress, wallets: server.wallets, thresholds: this.keeper.view.thresholds });
  }

  async end(summary: unknown): Promise<void> {
    const s = summary as { status?: string; thresholds?: ThresholdState[] };
    this.keeper.end(s.status ?? 'ended', s.thresholds);
    if (this.opts.exportFile) writeFileAtomic(this.opts.exportFile, dashboardPage(this.keeper.view), { mkdir: true });
    this.send('end', { status: this.keeper.view.status, thresholds: this.keeper.view.thresholds });
    await this.close();
  }

  private serve(req: http.IncomingMessage, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://dashboard');
    if (req.method !== 'GET') {
      res.writeHead(405).end();
    } else if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(dashboardPage(null));
    } else if (url.pathname === '/run.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(this.keeper.view));
    } else if (url.pathname === '/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      res.write(event('snapshot', this.keeper.view));
      this.clients.add(res);
      req.on('close', () => this.clients.delete(res));
    } else {
      res.writeHead(404).end();
    }
  }

  private send(name: string, data: unknown): void {
    this.broadcast(event(name, data));
  }

  private broadcast(text: string): void {
    for (const c of this.clients) c.write(text);
  }

  /**
   * Ends every stream once what was written has gone out (1 s at most: a stop ends within 2 s), then
   * stops listening. A run that never got to end() (it failed, or stopped before its first request)
   * tells the page so first, instead of leaving it waiting.
   */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    if (this.keeper.view.status === 'running') {
      this.keeper.end('ended early', undefined);
      this.send('end', { status: this.keeper.view.status, thresholds: this.keeper.view.thresholds });
    }
    const flushed = Promise.all([...this.clients].map((c) => new Promise<void>((resolve) => c.end(resolve))));
    await Promise.race([flushed, new Promise((resolve) => setTimeout(resolve, 1_000).unref())]);
    this.clients.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
