/**
 * Builds the lab chain on a fresh regtest node and writes its dataset and manifest.
 *
 * Order of events: mine past segwit/taproot activation (height 432 on regtest); split a few early
 * 50 BTC coinbases into funding coins; then rounds of fan-out transactions (round r pays every
 * address that still needs receives), a block every ROUNDS_PER_BLOCK rounds, each block followed
 * by the spends that have come due; finally a few mempool transactions. Every transaction spends
 * confirmed coins only, so the node never holds unconfirmed chains.
 */
import path from 'node:path';
import type { NodeRpc } from '../../node/rpc';
import { UserError } from '../../core/user-error';
import { btcToSats, ChainClient } from './chain';
import { deriveOwner, minerOwner, Owner } from './keys';
import { Coin, Ledger } from './ledger';
import { assemble } from './assemble';
import type { LabManifest } from './manifest';
import { buildMempoolTxs } from './mempool';
import { writeAtomic, writeManifest } from './output';
import { AddressPlan, AddressesPerSize, DEFAULT_MAX_TX_COUNT, makePlan } from './plan';
import { Rng } from './rng';
import { dueSpends, SpendProgress } from './schedule';
import { diffTruths, truthFromLedger } from './truth';
import { BuiltTx, buildTx, estimateVsize, FEE_RATE_SAT_PER_VB, MIN_OUTPUT, Payment } from './txbuilder';
import { walkChain } from './walk';
import { buildWallets, LabWallet, walletFundingCoins, walletLines, walletPlans } from './wallets';
import { walletsText } from '../../dataset/wallet-file';

export interface GenerateOptions {
  seed: string;
  datasetPath: string;
  manifestPath: string;
  mempoolTxs?: number; // default 3
  maxTxCount?: number; // longest confirmed history; default 1100
  addressesPerSize?: AddressesPerSize; // addresses at each history size; default 3 (the chain's scale)
  /** Where to write the lab wallets (none are made without it), and how many of each size. */
  walletsPath?: string;
  walletScale?: number;
  log?: (message: string) => void;
}

export const DEFAULT_MEMPOOL_TXS = 3;
const ACTIVATION_TIP = 440; // segwit and taproot are active from 432; coinbases 1.. are mature
const ROUNDS_PER_BLOCK = 40;
const FUNDING_VALUE = 10_000_000; // one coin pays a whole fan-out (≤ ~60 outputs of ≤ 150k)
const FUNDING_COINS_PER_COINBASE = 480; // 48 BTC out of a 50 BTC coinbase
const OUTPUT_MIN = 5_000;
const OUTPUT_MAX = 150_000;
// Funding comes from coinbases below height 150, the 50 BTC ones; this keeps within them.
const MAX_TX_COUNT_LIMIT = 20_000;

interface Entry {
  plan: AddressPlan;
  owner: Owner;
  done: SpendProgress;
}

export async function generateChain(rpc: NodeRpc, opts: GenerateOptions): Promise<LabManifest> {
  const started = Date.now();
  const log = opts.log ?? (() => undefined);
  const mempoolTxs = opts.mempoolTxs ?? DEFAULT_MEMPOOL_TXS;
  const maxTxCount = opts.maxTxCount ?? DEFAULT_MAX_TX_COUNT;
  if (typeof opts.seed !== 'string' || opts.seed.length === 0) throw new UserError('generateChain: seed must be a non-empty string');
  if (!Number.isInteger(mempoolTxs) || mempoolTxs < 0) throw new UserError(`generateChain: mempoolTxs must be an integer ≥ 0, got ${mempoolTxs}`);
  if (!Number.isInteger(maxTxCount) || maxTxCount < 1 || maxTxCount > MAX_TX_COUNT_LIMIT) {
    throw new UserError(`generateChain: maxTxCount must be an integer in 1..${MAX_TX_COUNT_LIMIT}, got ${maxTxCount}`);
  }

  const chain = new ChainClient(rpc);
  const network = await chain.chainName();
  if (network !== 'regtest') throw new UserError(`generateChain: node ${rpc.describe()} is on ${network}, not regtest`);
  // Ground truth assumes every transaction on the chain is ours and every dataset address new.
  if ((await chain.blockCount()) !== 0 || (await chain.mempoolTxids()).length !== 0) {
    throw new UserError(`generateChain: node ${rpc.describe()} must be a fresh regtest chain (height 0, empty mempool); restart btcd to reset it`);
  }

  const seed = opts.seed;
  const plan = makePlan(maxTxCount, opts.addressesPerSize);
  const miner = minerOwner(seed);
  const funder = deriveOwner(seed, 'funder', 'p2wpkh');
  const sink = deriveOwner(seed, 'sink', 'p2wpkh');
  const entries: Entry[] = plan.addresses.map((p) => ({ plan: p, owner: deriveOwner(seed, p.label, p.kind), done: { txs: 0, outputs: 0 } }));
  const ledger = new Ledger();
  const amounts = new Rng(seed, 'amounts');
  const picks = new Rng(seed, 'picks');
  let pending: BuiltTx[] = [];

  const keep = (tx: BuiltTx): BuiltTx => {
    ledger.record({ txid: tx.txid, hex: tx.hex, inputs: tx.inputs, outputs: tx.outputs });
    pending.push(tx);
    return tx;
  };
  const fund = (payments: Payment[]): BuiltTx => keep(buildTx(ledger, selectFunding(ledger, funder, payments), payments, funder));
  const settle = async (): Promise<void> => {
    await chain.submit(pending.map((t) => t.hex));
    const waiting = new Set(pending.map((t) => t.txid));
    pending = [];
    // btcd caps a block at 750 kB serialized: keep mining until all of ours are in.
    for (let i = 0; i < 20 && waiting.size > 0; i++) {
      const [block] = await chain.blockTxids(await chain.mine(1, miner.address));
      for (const txid of block.tx) {
        ledger.confirm(txid, block.height);
        waiting.delete(txid);
      }
    }
    if (waiting.size > 0) throw new Error(`${waiting.size} transactions were not mined, e.g. ${[...waiting][0]}`);
  };

  function spendDue(e: Entry, roundsDone: number): void {
    const sizes = dueSpends(e.plan, e.done, roundsDone);
    if (sizes.length === 0) return;
    const need = sizes.reduce((a, b) => a + b, 0);
    const coins = picks.shuffle(ledger.spendable(e.owner));
    if (coins.length < need) throw new Error(`${e.plan.label}: ${need} inputs due, ${coins.length} spendable`);
    let at = 0;
    for (const n of sizes) {
      keep(buildTx(ledger, coins.slice(at, at + n), [], sink));
      at += n;
    }
    e.done.txs += sizes.length;
    e.done.outputs += need;
  }

  log(`mining ${ACTIVATION_TIP} blocks to ${miner.address}`);
  await chain.mine(ACTIVATION_TIP, miner.address);
  // A coin per round (a round of the default chain fits in one), plus, for larger chains whose
  // rounds need several, coins for every payment at its largest value.
  const outputs = plan.addresses.reduce((n, a) => n + a.receives * a.outputsPerReceive, 0);
  const wallets = opts.walletsPath ? walletPlans(opts.walletScale ?? 1) : [];
  const fundingCoins = plan.rounds + mempoolTxs + 1 + Math.ceil((outputs * OUTPUT_MAX) / FUNDING_VALUE) + walletFundingCoins(wallets, FUNDING_VALUE);
  const coinbases = Math.ceil(fundingCoins / FUNDING_COINS_PER_COINBASE);
  for (const coin of await coinbaseCoins(chain, ledger, miner, coinbases)) {
    const split = Array.from({ length: FUNDING_COINS_PER_COINBASE }, () => ({ owner: funder, value: FUNDING_VALUE }));
    keep(buildTx(ledger, [coin], split, funder));
  }
  await settle();

  log(`${plan.addresses.length} addresses, ${plan.rounds} fan-out rounds`);
  for (let round = 0; round < plan.rounds; round++) {
    const payments: Payment[] = [];
    for (const e of entries) {
      if (round >= e.plan.receives) continue;
      for (let k = 0; k < e.plan.outputsPerReceive; k++) payments.push({ owner: e.owner, value: amounts.int(OUTPUT_MIN, OUTPUT_MAX) });
    }
    fund(amounts.shuffle(payments));
    const roundsDone = round + 1;
    if (roundsDone % ROUNDS_PER_BLOCK === 0 || roundsDone === plan.rounds) {
      await settle();
      for (const e of entries) spendDue(e, roundsDone);
      if (roundsDone % (ROUNDS_PER_BLOCK * 5) === 0) log(`round ${roundsDone}/${plan.rounds}`);
    }
  }
  await settle();
  for (const e of entries) {
    if (e.done.txs !== e.plan.spendTxs || e.done.outputs !== e.plan.spentOutputs) {
      throw new Error(`${e.plan.label}: spent ${e.done.outputs} outputs in ${e.done.txs} txs, planned ${e.plan.spentOutputs} in ${e.plan.spendTxs}`);
    }
  }

  // The wallets come after the dataset's rounds, with a random stream of their own, so that adding
  // them left every dataset address as it was.
  let labWallets: LabWallet[] = [];
  if (wallets.length > 0) {
    log(`${wallets.length} wallets, ${wallets.reduce((n, w) => n + w.txCount, 0)} wallet transactions`);
    labWallets = await buildWallets(
      { seed, ledger, rng: new Rng(seed, 'wallets'), sink, fund, keep, settle, buildTx: (inputs, payments, change) => buildTx(ledger, inputs, payments, change) },
      wallets,
    );
  }

  const confirmedTxs = ledger.txs.size;
  const mempool = buildMempoolTxs({ ledger, rng: picks, sink, dataset: entries, fund, keep }, mempoolTxs);
  await chain.submit(pending.map((t) => t.hex));
  pending = [];
  const inPool = new Set(await chain.mempoolTxids());
  const missing = mempool.filter((t) => !inPool.has(t.txid));
  if (missing.length > 0) throw new Error(`mempool transaction ${missing[0].txid} is not in the node's mempool`);

  const owners = entries.map((e) => e.owner);
  const walletOwners = labWallets.flatMap((w) => w.owners());
  const truth = truthFromLedger(ledger, [...owners, ...walletOwners]);
  for (const e of entries) {
    const t = truth.get(e.owner.scripthash)!;
    // The plan speaks of the chain alone; mempool spends are applied on top of it.
    const unspentOnChain = ledger
      .coinsOf(e.owner)
      .filter((c) => c.height !== null && (c.spentBy === null || ledger.txs.get(c.spentBy)?.height === null)).length;
    if (t.txCount !== e.plan.txCount || unspentOnChain !== e.plan.finalUtxos) {
      throw new Error(`${e.plan.label}: ledger has ${t.txCount} txs / ${unspentOnChain} utxos, plan says ${e.plan.txCount} / ${e.plan.finalUtxos}`);
    }
  }
  log('cross-checking against a walk of the chain');
  const walk = await walkChain(chain, [...owners, ...walletOwners].map((o) => o.scripthash));
  const diffs = diffTruths(truth, walk.truths);
  if (diffs.length > 0) throw new Error(`ledger and chain walk disagree:\n  ${diffs.join('\n  ')}`);

  const { text, manifest } = assemble({
    seed,
    plan,
    addresses: entries.map((e) => ({ plan: e.plan, owner: e.owner, truth: truth.get(e.owner.scripthash)! })),
    walk,
    datasetFile: path.basename(opts.datasetPath),
    mempoolTxs,
    generatedTransactions: confirmedTxs,
    mempoolTransactions: mempool.length,
    miningAddress: miner.address,
  });
  writeAtomic(opts.datasetPath, text);
  if (opts.walletsPath) writeAtomic(opts.walletsPath, walletsText(walletLines(ledger, labWallets)));
  writeManifest(opts.manifestPath, manifest);
  log(`wrote ${manifest.dataset.lines} addresses at height ${walk.tipHeight} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return manifest;
}

/** Confirmed funding coins, oldest first, enough for the payments, their fee and some change. */
function selectFunding(ledger: Ledger, funder: Owner, payments: Payment[]): Coin[] {
  const want = payments.reduce((s, p) => s + p.value, 0) + MIN_OUTPUT;
  const scripts = [...payments.map((p) => p.owner.script), funder.script];
  const chosen: Coin[] = [];
  let total = 0;
  for (const c of ledger.spendable(funder)) {
    chosen.push(c);
    total += c.value;
    if (total >= want + estimateVsize(chosen, scripts) * FEE_RATE_SAT_PER_VB) return chosen;
  }
  throw new Error(`funding coins exhausted: need ${want} sats more than the ${total} available`);
}

/** The first `count` coinbases (heights 1..count), checked to pay our miner key. */
async function coinbaseCoins(chain: ChainClient, ledger: Ledger, miner: Owner, count: number): Promise<Coin[]> {
  const heights = Array.from({ length: count }, (_, i) => i + 1);
  const blocks = await chain.verboseBlocks(await chain.blockHashes(heights));
  const minerHex = Buffer.from(miner.script).toString('hex');
  return blocks.map((b) => {
    const cb = b.tx[0];
    const vout = cb.vout.findIndex((o) => o.scriptPubKey.hex === minerHex);
    if (vout < 0) {
      throw new UserError(`coinbase at height ${b.height} does not pay ${miner.address}: start btcd with --miningaddr=${miner.address}`);
    }
    ledger.addForeign(cb.txid, cb.hex, b.height, cb.vout.map((o) => ({ owner: o.scriptPubKey.hex === minerHex ? miner : null, value: btcToSats(o.value) })));
    return ledger.coins.get(`${cb.txid}:${vout}`)!;
  });
}
