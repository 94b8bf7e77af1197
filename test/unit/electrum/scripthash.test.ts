import { scriptHashOfAddress, outputScriptOf, addressOfScript, scriptType, NETWORK_NAMES } from '../../../src/electrum/scripthash';
import * as bitcoin from 'bitcoinjs-lib';
import { bitcoinNetwork } from '../../../src/electrum/scripthash';
import { UserError } from '../../../src/core/user-error';

test('matches the protocol documentation example (genesis coinbase address)', () => {
  // Electrum protocol docs, "Script Hashes".
  expect(scriptHashOfAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'mainnet')).toBe(
    '8b01df4e368ea28f8dc0423bcf7a4923e3a12d307c875e47a0cfbf90b5c39161',
  );
});

test.each(NETWORK_NAMES)('every standard type round-trips on %s', (net) => {
  const network = bitcoinNetwork(net);
  const hash20 = Buffer.alloc(20, 7);
  const hash32 = Buffer.alloc(32, 9);
  const xOnlyG = Buffer.from('79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798', 'hex');
  const cases: Array<[string, string]> = [
    [bitcoin.payments.p2pkh({ hash: hash20, network }).address!, 'p2pkh'],
    [bitcoin.payments.p2sh({ hash: hash20, network }).address!, 'p2sh'],
    [bitcoin.payments.p2wpkh({ hash: hash20, network }).address!, 'p2wpkh'],
    [bitcoin.payments.p2wsh({ hash: hash32, network }).address!, 'p2wsh'],
    [bitcoin.address.toBech32(xOnlyG, 1, network.bech32), 'p2tr'],
  ];
  for (const [address, type] of cases) {
    const script = outputScriptOf(address, net);
    expect(scriptType(script)).toBe(type);
    expect(addressOfScript(script, net)).toBe(address);
    expect(scriptHashOfAddress(address, net)).toMatch(/^[0-9a-f]{64}$/);
  }
});

test('an address of another network or a typo is a user error naming it', () => {
  expect(() => scriptHashOfAddress('1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', 'regtest')).toThrow(UserError);
  expect(() => scriptHashOfAddress('bc1qnotanaddress', 'mainnet')).toThrow(/bc1qnotanaddress/);
});
