/**
 * The lab's wallets: BIP32 accounts (one per wallet, of the address types the dataset uses) whose
 * receive and change chains get real histories, from one to several hundred transactions, so that a
 * wallet's whole sync can be measured and verified.
 *
 * A wallet of T transactions receives R = T − ⌊T/3⌋ payments (one per round, from fan-outs of their
 * own, so each is a distinct transaction) spread over its first ⌈0.6·R⌉ receive addresses, some
 * reused as real users do; and spends ⌊T/3⌋ times, each spend paying a foreign script and sending
 * its change to the next unused change address. Used addresses are contiguous on each chain, so
 * every gap-limit scan finds them all.
 */
import { createHash } from 'node:crypto';
import * as ecc from '@bitcoinerlab/secp256k1';
import * as bitcoin from 'bitcoinjs-lib';
import { BIP32Factory } from 'bip32';
import type { WalletChain } from '../../core/wallet-chain';
import type { WalletLine } from '../../core/wallet-line';
import { descriptorOf, PURPOSE_PATH } from './descriptor';
import { fullSyncCalls } from '../../core/wallet-scan';
import { ownerOfKey, Owner, SPEND_KINDS, SpendKind } from './keys';
import type { Coin, Ledger } from './ledger';
import type { Rng } from './rng';
import type { BuiltTx, Payment } from './txbuilder';

const bip32 = BIP32Factory(ecc);

/** Transactions per wallet at scale 1; larger scales repeat each size. */
export const WALLET_SIZES = [1, 2, 5, 10, 20, 50, 100, 200, 400];
/** Unused scripts listed after the last used one: a 20-script gap plus a 10-script batch past it (bdk). */
export const WALLET_GAP = 30;
const ROUNDS_PER_BLOCK = 20;
const RECEIVE_MIN = 20_000;
const RECEIVE_MAX = 500_000;

export interface WalletPlan {
  name: string;
  kind: SpendKind;
  txCount: number;
  receives: number;
  spends: number;
  usedReceive: number;
}

export function walletPlans(scale: number): WalletPlan[] {
  const perSize = scale <= 1 ? 1 : Math.ceil(scale / 2);
  const plans: WalletPlan[] = [];
  for (const txCount of WALLET_SIZES) {
    for (let k = 0; k < perSize; k++) {
      const i = plans.length;
      const spends = txCount >= 3 ? Math.floor(txCount / 3) : 0;
      const receives = txCount - spends;
      plans.push({
        name: `lab-w${String(i).padStart(2, '0')}-${txCount}tx`,
        kind: SPEND_KINDS[i % SPEND_KINDS.length],
        txCount,
        receives,
        spends,
        usedReceive: Math.max(1, Math.ceil(receives * 0.6)),
      });
    }
  }
  return plans;
}

/** A plan's keys: an account per wallet, its scripts derived on demand and kept. */
export class LabWallet {
  readonly descriptors: Record<WalletChain, string>;
  private readonly account: ReturnType<typeof bip32.fromSeed>;
  private readonly scripts: Record<WalletChain, Owner[]> = { receive: [], change: [] };
  spendsDone = 0;

  constructor(
    seed: string,
    readonly plan: WalletPlan,
  ) {
    const master = bip32.fromSeed(sha256(`electrum-bench/lab-wallet/v1\0${seed}\0${plan.name}`), bitcoin.networks.regtest);
    const path = PURPOSE_PATH[plan.kind];
    this.account = master.derivePath(`m/${path}`);
    const origin = `[${Buffer.from(master.fingerprint).toString('hex')}/${path.replace(/'/g, 'h')}]${this.account.neutered().toBase58()}`;
    this.descriptors = { receive: descriptorOf(plan.kind, `${origin}/0/*`), change: descriptorOf(plan.kind, `${origin}/1/*`) };
  }

  script(chain: WalletChain, index: number): Owner {
    const list = this.scripts[chain];
    while (list.length <= index) {
      const n = list.length;
      const key = this.account.derive(chain === 'receive' ? 0 : 1).derive(n).privateKey;
      if (!key) throw new Error(`${this.plan.name}: no private key at ${chain}/${n}`);
      list.push(ownerOfKey(key, `${this.plan.name}/${chain}/${n}`, this.plan.kind));
    }
    return list[index];
  }

  /** Every script the wallet file lists: the used ones and WALLET_GAP unused ones after them. */
  listed(chain: WalletChain): Owner[] {
    const used = chain === 'receive' ? this.plan.usedReceive : this.plan.spends;
    for (let i = 0; i < used + WALLET_GAP; i++) this.script(chain, i);
    return this.scripts[chain].slice(0, used + WALLET_GAP);
  }

  owners(): Owner[] {
    return [...this.listed('receive'), ...this.listed('change')];
  }
}

export interface WalletBuild {
  seed: string;
  ledger: Ledger;
  rng: Rng;
  sink: Owner;
  fund: (payments: Payment[]) => BuiltTx;
  keep: (tx: BuiltTx) => BuiltTx;
  settle: () => Promise<void>;
  buildTx: (inputs: Coin[], payments: Payment[], change: Owner) => BuiltTx;
}

/** Funding coins the wallets' fan-outs need at most. */
export function walletFundingCoins(plans: WalletPlan[], coinValue: number): number {
  const rounds = Math.max(0, ...plans.map((p) => p.receives));
  const outputs = plans.reduce((n, p) => n + p.receives, 0);
  return rounds + Math.ceil((outputs * RECEIVE_MAX) / coinValue);
}

/** Makes every wallet's transactions and mines them; all confirmed when it returns. */
export async function buildWallets(b: WalletBuild, plans: WalletPlan[]): Promise<LabWallet[]> {
  const wallets = plans.map((p) => new LabWallet(b.seed, p));
  const rounds = Math.max(0, ...plans.map((p) => p.receives));
  for (let round = 0; round < rounds; round++) {
    const payments: Payment[] = [];
    for (const w of wallets) {
      if (round >= w.plan.receives) continue;
      const index = Math.floor((round * w.plan.usedReceive) / w.plan.receives);
      payments.push({ owner: w.script('receive', index), value: b.rng.int(RECEIVE_MIN, RECEIVE_MAX) });
    }
    b.fund(b.rng.shuffle(payments));
    const roundsDone = round + 1;
    if (roundsDone % ROUNDS_PER_BLOCK === 0 || roundsDone === rounds) {
      await b.settle();
      for (const w of wallets) spendDue(b, w, roundsDone);
    }
  }
  await b.settle();
  for (const w of wallets) {
    if (w.spendsDone !== w.plan.spends) throw new Error(`${w.plan.name}: ${w.spendsDone} spends made, ${w.plan.spends} planned`);
  }
  return wallets;
}

/** Spends in proportion to the receives confirmed so far, each with change to a new address. */
function spendDue(b: WalletBuild, w: LabWallet, roundsDone: number): void {
  const due = Math.floor((w.plan.spends * Math.min(roundsDone, w.plan.receives)) / w.plan.receives) - w.spendsDone;
  for (let k = 0; k < due; k++) {
    const coins = b.rng.shuffle(w.owners().flatMap((o) => b.ledger.spendable(o)));
    const left = due - k;
    const take = coins.length >= 2 * left ? 2 : 1;
    if (coins.length < take) throw new Error(`${w.plan.name}: no confirmed coin left for spend ${w.spendsDone + 1}`);
    const inputs = coins.slice(0, take);
    const total = inputs.reduce((s, c) => s + c.value, 0);
    const pay = Math.floor((total * b.rng.int(20, 60)) / 100);
    b.keep(b.buildTx(inputs, [{ owner: b.sink, value: pay }], w.script('change', w.spendsDone)));
    w.spendsDone++;
  }
}

/** The wallets file's lines, from the ledger (already checked against a walk of the chain). */
export function walletLines(ledger: Ledger, wallets: LabWallet[]): WalletLine[] {
  return wallets.map((w) => {
    const owners = new Set(w.owners());
    const txids = new Set<string>();
    let confirmed = 0;
    let unconfirmed = 0;
    for (const tx of ledger.txs.values()) {
      if (tx.inputs.some((c) => owners.has(c.owner)) || tx.outputs.some((o) => o.owner && owners.has(o.owner))) txids.add(tx.txid);
    }
    for (const o of owners) {
      for (const c of ledger.coinsOf(o)) {
        if (c.spentBy !== null) continue;
        if (c.height === null) unconfirmed += c.value;
        else confirmed += c.value;
      }
    }
    if (txids.size !== w.plan.txCount) throw new Error(`${w.plan.name}: ${txids.size} transactions in the ledger, ${w.plan.txCount} planned`);
    const entry = (o: Owner) => ({ address: o.address, scripthash: o.scripthash });
    return {
      wallet: w.plan.name,
      origin: 'lab' as const,
      type: w.plan.kind,
      descriptors: w.descriptors,
      gap: WALLET_GAP,
      chains: { receive: w.listed('receive').map(entry), change: w.listed('change').map(entry) },
      expected: {
        txCount: txids.size,
        txCountExact: true,
        balance: { confirmed, unconfirmed },
        usedScripts: { receive: w.plan.usedReceive, change: w.plan.spends },
        // Every wallet transaction is confirmed: one proof each.
        fullSync: fullSyncCalls({ receive: w.plan.usedReceive, change: w.plan.spends }, txids.size, txids.size),
      },
    };
  });
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
