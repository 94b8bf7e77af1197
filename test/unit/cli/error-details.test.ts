/** A bug's details hide every secret the process was given, however it was given. */
import { withoutSecrets } from '../../../src/cli/error-details';

const argv = ['node', 'dataset.ts', 'build', '--rpc', 'http://bob:url-pw@127.0.0.1:8332', '--rpc-password', "it's-mine", '--rpcPassword=camel-pw', '--rpc-user', 'bob'];
const env = { ELECTRUM_BENCH_RPC_PASSWORD: 'env-pw', ELECTRUM_BENCH_PROMETHEUS_RW_PASSWORD: 'prom-pw', ELECTRUM_BENCH_RPC_USER: 'bob', HOME: '/home/bob' };

test('the values of --rpc-password (either spelling, either form), of the password variables and of a URL user:password@ are hidden', () => {
  const text = `failed: http://bob:url-pw@127.0.0.1:8332 with it's-mine, camel-pw, env-pw and prom-pw; electrums://x:y@h:1`;
  expect(withoutSecrets(text, argv, env)).toBe('failed: http://***@127.0.0.1:8332 with ***, ***, *** and ***; electrums://***@h:1');
});

test('what is no secret is left as it is', () => {
  expect(withoutSecrets('user bob at /home/bob, --rpc-user bob, http://127.0.0.1:8332', argv, env)).toBe('user bob at /home/bob, --rpc-user bob, http://127.0.0.1:8332');
});

test('a secret holding another is hidden whole', () => {
  expect(withoutSecrets('pw pw-longer', ['node', 'x', '--rpc-password', 'pw-longer'], { ELECTRUM_BENCH_RPC_PASSWORD: 'pw' })).toBe('*** ***');
});
