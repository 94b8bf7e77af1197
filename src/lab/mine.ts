/**
 * Blocks and payments on demand, on a regtest node whose coinbases pay the lab's miner key: a
 * payment spends a mature coinbase from height 150 on (the generator funds itself from the ones
 * below), pays each address, and returns the change to the miner. Used by `lab mine` and by
 * `load --notify`, which times the servers' notifications from the moment a block is asked for.
 */
import * as bitcoin from 'bitcoinjs-lib';
import type { NodeRpc } from '../node/rpc';
import { outputScriptOf } from '../electrum/scripthash';
import { UserError } from '../core/user-error';
import { btcToSats, ChainClient } from './generator/chain';
import { minerOwner } from './generator/keys';

const FIRST_FREE_COINBASE = 150;
const MATURITY = 100;
// A P2PKH input and up to 43-vB outputs, at 2 sat/vB: above btcd's relay floor with room to spare.
const feeFor = (outputs: number): number => 2 * (10 + 148 + 43 * (outputs + 1));

export interface MinedBlock {
  height: number;
  hash: string;
  /** process.hrtime.bigint() when the mining call was sent, and when it returned. */
  askedNs: bigint;
  returnedNs: bigint;
}

export class LabMiner {
  private readonly chain: ChainClient;
  private readonly miner: ReturnType<typeof minerOwner>;
  private nextCoinbase = FIRST_FREE_COINBASE;

  constructor(
    private readonly rpc: NodeRpc,
    seed: string,
  ) {
    this.chain = new ChainClient(rpc);
    this.miner = minerOwner(seed);
  }

  /** Mines one block (with whatever the mempool holds) to the miner key. */
  async mineOne(): Promise<MinedBlock> {
    const askedNs = process.hrtime.bigint();
    const [hash] = await this.chain.mine(1, this.miner.address);
    const returnedNs = process.hrtime.bigint();
    const header = await this.rpc.call<{ height: number }>('getblockheader', [hash, true]);
    return { height: header.height, hash, askedNs, returnedNs };
  }

  /** Sends one transaction paying `sats` to each address; returns its txid (in the mempool). */
  async pay(addresses: string[], sats: number): Promise<string> {
    if (addresses.length === 0) throw new UserError('nothing to pay: no address given');
    if (!Number.isInteger(sats) || sats < 1000) throw new UserError(`--amount must be an integer of at least 1000 sat, got ${sats}`);
    const scripts = addresses.map((a) => outputScriptOf(a, 'regtest'));
    const coin = await this.spendableCoinbase(sats * addresses.length + feeFor(addresses.length));
    const psbt = new bitcoin.Psbt({ network: bitcoin.networks.regtest });
    psbt.addInput({ hash: coin.txid, index: coin.vout, nonWitnessUtxo: Buffer.from(coin.hex, 'hex') });
    for (const script of scripts) psbt.addOutput({ script, value: BigInt(sats) });
    psbt.addOutput({ script: this.miner.script, value: BigInt(coin.value - sats * addresses.length - feeFor(addresses.length)) });
    psbt.signInput(0, this.miner.signer);
    psbt.finalizeAllInputs();
    const tx = psbt.extractTransaction();
    await this.chain.submit([tx.toHex()]);
    return tx.getId();
  }

  private async spendableCoinbase(need: number): Promise<{ txid: string; vout: number; value: number; hex: string }> {
    const tip = await this.chain.blockCount();
    const minerHex = Buffer.from(this.miner.script).toString('hex');
    for (; this.nextCoinbase <= tip - MATURITY; this.nextCoinbase++) {
      const [block] = await this.chain.verboseBlocks(await this.chain.blockHashes([this.nextCoinbase]));
      const cb = block.tx[0];
      const out = cb.vout.find((o) => o.scriptPubKey.hex === minerHex);
      if (!out || btcToSats(out.value) < need) continue;
      // Unspent, also by the mempool (a payment not mined yet).
      const unspent = await this.rpc.call<unknown>('gettxout', [cb.txid, out.n, true]);
      if (unspent) return { txid: cb.txid, vout: out.n, value: btcToSats(out.value), hex: cb.hex };
    }
    throw new UserError(`no mature coinbase of the lab's miner left to pay from (tip ${tip}): mine ${MATURITY} blocks first (npm run lab -- mine ${MATURITY})`);
  }
}
