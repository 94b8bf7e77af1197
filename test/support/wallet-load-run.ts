/** A wallet load run of one server `s` on 127.0.0.1:`port`, recorded in `results` as `load --workload electrum` records one. */
import { WalletStore } from '../../src/store/wallets';
import type { ResultsStore } from '../../src/store/results';

export function walletLoadRun(results: ResultsStore, port: number) {
  const store = new WalletStore(results);
  const target = { name: 's', profile: 'generic' as const, host: '127.0.0.1', port, tls: false };
  const { runId, serverIds } = store.createRun(
    { kind: 'load', tool_version: 't', git_commit: null, config: {}, workload: 'electrum', wallets_path: 'w', wallets_hash: 'h', passes: null, warmup: null },
    [{ name: 's', profile: 'generic', url: 'tcp://127.0.0.1', software: null, protocol: null }],
  );
  return { store, target, runId, serverIds };
}
