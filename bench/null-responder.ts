/**
 * A null Electrum responder for the client-overhead benchmark: answers every request line at once
 * with a fixed result, in its own process so it never shares an event loop with the client.
 * Prints its port on stdout. Loopback only; exits when its parent goes away.
 */
import net from 'node:net';

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk.toString('latin1');
    let out = '';
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      // Only the id is needed; a full parse would make the responder the bottleneck.
      const m = /"id":\s*(\d+)/.exec(line);
      const id = m ? m[1] : 'null';
      out += line.includes('"server.version"')
        ? `{"jsonrpc":"2.0","id":${id},"result":["null-responder 0","1.4"]}\n`
        : `{"jsonrpc":"2.0","id":${id},"result":{"confirmed":0,"unconfirmed":0}}\n`;
    }
    if (out) socket.write(out);
  });
  socket.on('error', () => undefined);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${(server.address() as net.AddressInfo).port}\n`);
});
process.on('disconnect', () => process.exit(0));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
