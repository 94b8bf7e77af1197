/**
 * The two chains of a BIP32 wallet (BIP44's change index 0 and 1): the words both a wallet's shape
 * (wallet-line.ts) and how a workload scans it (wallet-scan.ts) are written in.
 */
export const WALLET_CHAINS = ['receive', 'change'] as const;
export type WalletChain = (typeof WALLET_CHAINS)[number];
