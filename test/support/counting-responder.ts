/**
 * An Electrum responder on 127.0.0.1 that answers every call at once with `null` (server.version
 * with a version) and counts, per connection, its reads that held scripthash calls and the calls
 * they held: how a client's requests reached the server, write by write (on loopback, a small
 * write arrives as one read unless the responder fell behind and found several waiting).
 * It runs in a child process of its own, so a client that blocks its own event loop never holds
 * the responder's reads back, and asks it for its counts over stdin.
 */
import net from 'node:net';
import { spawn } from 'node:child_process';

export interface ReadCounts {
  /** Reads that held at least one scripthash call. */
  reads: number;
  /** Scripthash calls, over every connection. */
  calls: number;
  /** The most calls any one read held. */
  mostInOneRead: number;
}

/** Serves and counts in this process until stdin ends; prints the port, then the counts each time stdin says `counts`. */
function serve(): void {
  const counts: ReadCounts = { reads: 0, calls: 0, mostInOneRead: 0 };
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      let out = '';
      let calls = 0;
      for (let nl = buffered.indexOf('\n'); nl >= 0; nl = buffered.indexOf('\n')) {
        const { id, method } = JSON.parse(buffered.slice(0, nl)) as { id: number; method: string };
        buffered = buffered.slice(nl + 1);
        if (method.startsWith('blockchain.scripthash.')) calls++;
        out += JSON.stringify({ jsonrpc: '2.0', id, result: method === 'server.version' ? ['counting-responder 0', '1.4'] : null }) + '\n';
      }
      if (calls > 0) {
        counts.reads++;
        counts.calls += calls;
        counts.mostInOneRead = Math.max(counts.mostInOneRead, calls);
      }
      if (out) socket.write(out);
    });
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as net.AddressInfo).port}\n`));
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (d) => {
    if (String(d).includes('counts')) process.stdout.write(JSON.stringify(counts) + '\n');
  });
  process.stdin.on('end', () => process.exit(0));
}

export interface CountingResponder {
  port: number;
  /** The counts so far. */
  counts(): Promise<ReadCounts>;
  close(): void;
}

/** Starts the responder in a child process. */
export async function startCountingResponder(): Promise<CountingResponder> {
  const code = `require(${JSON.stringify(__filename)}).serveCounting()`;
  const child = spawn(process.execPath, ['--import', 'tsx', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let partial = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (d: string) => {
    partial += d;
    for (let nl = partial.indexOf('\n'); nl >= 0; nl = partial.indexOf('\n')) {
      const line = partial.slice(0, nl);
      partial = partial.slice(nl + 1);
      const w = waiting.shift();
      if (w) w(line);
      else lines.push(line);
    }
  });
  const nextLine = () => new Promise<string>((resolve, reject) => {
    const l = lines.shift();
    if (l !== undefined) return resolve(l);
    waiting.push(resolve);
    child.once('exit', (c) => reject(new Error(`counting responder exited with ${c}`)));
  });
  const port = Number(await nextLine());
  return {
    port,
    counts: async () => {
      child.stdin!.write('counts\n');
      return JSON.parse(await nextLine()) as ReadCounts;
    },
    close: () => child.kill('SIGKILL'),
  };
}

export { serve as serveCounting };
