/**
 * An interrupted build resumes from NAME.jsonl.checkpoint: an append-only JSONL journal of what
 * is already done: blocks scanned (with the candidates they added) and candidates counted.
 * Appending keeps the cost per record small even for a mainnet-sized candidate set, and a crash
 * can at worst tear the last line, which is dropped on reading.
 *
 * The first line holds the key of the build that wrote it: everything that decides the journal's
 * contents. Selection options applied after counting (--per-bucket, --seed, --buckets, --types)
 * are not part of it, since any of them can be served from the same journal.
 */
import fs from 'node:fs';
import { UserError } from '../core/user-error';
import { ADDRESS_TYPES, AddressType } from './line';
import type { Candidate } from './outputs';
import type { CountResult } from './count';

export const CHECKPOINT_VERSION = 1;

export interface CheckpointKey {
  node: string; // URL without credentials
  network: string;
  from: number;
  to: number;
  countVia: string;
  minTxs: number;
  maxTxs: number | null;
}

const KEY_FLAGS: Record<keyof CheckpointKey, string> = {
  node: '--rpc',
  network: '--network',
  from: '--from',
  to: '--to',
  countVia: '--count-via',
  minTxs: '--min-txs',
  maxTxs: '--max-txs',
};

export interface Progress {
  /** Last height whose block is fully recorded; from - 1 when none. */
  scannedThrough: number;
  scannedHash: string | null;
  candidates: Map<string, Candidate>;
  counts: Map<string, CountResult>;
}

type CandidateRow = [string, string | null, AddressType];
type CountRow = [string, number | null, number?, number?, number?];
type Record_ =
  | { kind: 'header'; version: number; key: CheckpointKey }
  | { kind: 'scan'; through: number; hash: string; candidates: CandidateRow[] }
  | { kind: 'count'; results: CountRow[] };

export class Checkpoint {
  private constructor(
    readonly file: string,
    private fd: number | null,
  ) {}

  /** Opens the journal for `key`, replaying what an earlier run of the same build recorded. */
  static open(file: string, key: CheckpointKey): { checkpoint: Checkpoint; progress: Progress; resumed: boolean } {
    const progress: Progress = { scannedThrough: key.from - 1, scannedHash: null, candidates: new Map(), counts: new Map() };
    let resumed = false;
    if (fs.existsSync(file)) {
      replay(file, key, progress);
      resumed = true;
    } else {
      guard(file, () => fs.writeFileSync(file, JSON.stringify({ kind: 'header', version: CHECKPOINT_VERSION, key }) + '\n', { mode: 0o644 }));
    }
    return { checkpoint: new Checkpoint(file, guard(file, () => fs.openSync(file, 'a'))), progress, resumed };
  }

  recordScan(through: number, hash: string, added: Candidate[]): void {
    const candidates: CandidateRow[] = added.map((c) => [c.scripthash, c.address, c.type]);
    this.append({ kind: 'scan', through, hash, candidates });
  }

  recordCounts(results: Array<[string, CountResult]>): void {
    const rows: CountRow[] = results.map(([sh, r]) =>
      r.detail ? [sh, r.txCount, r.detail.utxoCount, r.detail.balance.confirmed, r.detail.balance.unconfirmed] : [sh, r.txCount],
    );
    this.append({ kind: 'count', results: rows });
  }

  close(): void {
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  /** The build finished: its journal has nothing left to give. */
  remove(): void {
    this.close();
    fs.rmSync(this.file, { force: true });
  }

  private append(record: Record_): void {
    if (this.fd === null) throw new Error(`checkpoint ${this.file} is closed`);
    // One write per record: a crash leaves whole records plus at most one torn tail.
    const fd = this.fd;
    guard(this.file, () => fs.writeSync(fd, JSON.stringify(record) + '\n'));
  }
}

function replay(file: string, key: CheckpointKey, progress: Progress): void {
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  let goodBytes = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    const isLast = i === lines.length - 1;
    if (raw === '') {
      if (!isLast) throw corrupt(file, i);
      break;
    }
    let record: Record_;
    try {
      record = JSON.parse(raw) as Record_;
    } catch {
      // Only the unterminated tail can be torn by a crash; anything else is damage.
      if (isLast) break;
      throw corrupt(file, i);
    }
    if (i === 0) checkHeader(file, record, key);
    else apply(file, i, record, progress);
    goodBytes += Buffer.byteLength(raw) + 1;
  }
  if (goodBytes < Buffer.byteLength(text)) fs.truncateSync(file, goodBytes);
}

function checkHeader(file: string, record: Record_, key: CheckpointKey): void {
  if (record.kind !== 'header' || record.version !== CHECKPOINT_VERSION) {
    throw new UserError(`${file} is not a checkpoint of this version; delete it to start over`);
  }
  for (const k of Object.keys(KEY_FLAGS) as Array<keyof CheckpointKey>) {
    if (record.key[k] !== key[k]) {
      throw new UserError(
        `${file} belongs to a different build (${KEY_FLAGS[k]} ${JSON.stringify(record.key[k])} there, ${JSON.stringify(key[k])} here): ` +
          'rerun that command to resume it, or delete the file to start over',
      );
    }
  }
}

function apply(file: string, i: number, record: Record_, progress: Progress): void {
  if (record.kind === 'scan' && Number.isInteger(record.through) && Array.isArray(record.candidates)) {
    for (const row of record.candidates) {
      if (!Array.isArray(row) || typeof row[0] !== 'string' || !(ADDRESS_TYPES as readonly string[]).includes(row[2])) throw corrupt(file, i);
      progress.candidates.set(row[0], { scripthash: row[0], address: row[1], type: row[2] });
    }
    progress.scannedThrough = record.through;
    progress.scannedHash = record.hash;
    return;
  }
  if (record.kind === 'count' && Array.isArray(record.results)) {
    for (const row of record.results) {
      if (!Array.isArray(row) || typeof row[0] !== 'string') throw corrupt(file, i);
      const [sh, txCount, utxoCount, confirmed, unconfirmed] = row;
      progress.counts.set(
        sh,
        utxoCount === undefined
          ? { txCount }
          : { txCount, detail: { utxoCount, balance: { confirmed: confirmed ?? 0, unconfirmed: unconfirmed ?? 0 } } },
      );
    }
    return;
  }
  throw corrupt(file, i);
}

function guard<T>(file: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new UserError(`cannot write checkpoint ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

function corrupt(file: string, i: number): UserError {
  return new UserError(`${file}:${i + 1}: corrupt checkpoint record; delete the file to start over`);
}
