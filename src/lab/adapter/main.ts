/**
 * Entry point of the adapter process: `node --import tsx src/lab/adapter/main.ts --port P
 * --btcd-port Q --cookie FILE`. Credentials come from the cookie file, never from argv (argv is
 * world-readable in ps). Started and stopped by the lab (src/lab/lab.ts) through its pid file.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { BtcdClient } from './btcd-client';
import { ChainData } from './chain-data';
import { ChainStore } from './chain-store';
import { readCredentials } from './credentials';
import { createAdapterServer } from './server';
import { SpenderIndex } from './spender-index';

const HOST = '127.0.0.1';

function log(line: string): void {
  process.stdout.write(`${new Date().toISOString()} ${line}\n`);
}

async function main(): Promise<void> {
  const argv = await yargs(hideBin(process.argv))
    .option('port', { type: 'number', demandOption: true, describe: 'port to listen on (127.0.0.1)' })
    .option('btcd-port', { type: 'number', demandOption: true, describe: "btcd's RPC port (127.0.0.1)" })
    .option('cookie', { type: 'string', demandOption: true, describe: 'user:password file for btcd and for clients' })
    .strict()
    .parseAsync();
  const creds = readCredentials(argv.cookie);
  const btcd = new BtcdClient(HOST, argv['btcd-port'], creds);
  const store = new ChainStore(btcd);
  const deps = { btcd, data: new ChainData(btcd, store), spenders: new SpenderIndex(store) };
  // ElectrumX and electrs reuse idle connections between polls; bindex retries only on 503 and
  // refused connections, so the adapter never closes an idle one (http-wire.ts has no idle timeout).
  const server = createAdapterServer(deps, creds, log);

  // Keep the spender index warm so gettxspendingprevout answers without a catch-up pause, and the
  // chain store current with blocks mined other than through the adapter.
  const keepCurrent = () => {
    deps.spenders.sync().catch(() => undefined); // syncs the store first
  };
  keepCurrent();
  const warm = setInterval(keepCurrent, 1_000);

  const stop = (signal: string) => {
    log(`${signal}: stopping`);
    clearInterval(warm);
    server.close(() => process.exit(0));
    server.closeAllConnections();
    setTimeout(() => process.exit(0), 2_000).unref();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  server.on('error', (err) => {
    log(`cannot listen on ${HOST}:${argv.port}: ${err.message}`);
    process.exit(1);
  });
  server.listen(argv.port, HOST, () => log(`listening on http://${HOST}:${argv.port}, forwarding to btcd at ${HOST}:${argv['btcd-port']}`));
}

main().catch((err) => {
  log(`fatal: ${(err as Error).stack ?? err}`);
  process.exit(1);
});
