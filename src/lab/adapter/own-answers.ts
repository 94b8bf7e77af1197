/**
 * THE list of answers the adapter gives itself instead of forwarding btcd's: whole RPC methods,
 * fields it adds to forwarded results, and the REST endpoints. Each is computed from btcd's real
 * data; the reason says why btcd's own answer could not be forwarded. The README quotes this list,
 * and a test checks that every own handler is on it.
 */
import type { Handler } from './context';
import { estimatesmartfee, getindexinfo, getnetworkinfo } from './node-info';
import { getmempoolentry, gettxspendingprevout } from './spends';

export interface OwnAnswer {
  name: string;
  reason: string;
}

/** Whole RPC methods the adapter answers. */
export const OWN_METHODS: Record<string, OwnAnswer & { handler: Handler }> = {
  getnetworkinfo: {
    name: 'getnetworkinfo',
    reason: 'btcd lacks it; version reported as 31.0 (the Core dialect served, ElectrumX 2.0 needs ≥ 31.0) and a Core-style subversion naming btcd (Fulcrum takes anything not starting /Satoshi: for Bitcoin Cash), relayfee/connections/protocolversion from btcd getinfo',
    handler: getnetworkinfo,
  },
  getindexinfo: {
    name: 'getindexinfo',
    reason: 'btcd lacks it; txindex is btcd\'s --txindex at its tip, txospenderindex is the adapter\'s spender index at its indexed height',
    handler: getindexinfo,
  },
  estimatesmartfee: {
    name: 'estimatesmartfee',
    reason: 'btcd lacks it; feerate from btcd estimatefee(conf_target), Core\'s "Insufficient data" errors when btcd has no estimate',
    handler: estimatesmartfee,
  },
  getmempoolentry: {
    name: 'getmempoolentry',
    reason: 'btcd lacks it; built from btcd getrawmempool verbose (fees, sizes, depends) and getrawtransaction (wtxid, nSequence)',
    handler: getmempoolentry,
  },
  gettxspendingprevout: {
    name: 'gettxspendingprevout',
    reason: 'btcd looks at its mempool only; confirmed spends (Core 31 txospenderindex) come from the adapter\'s index of btcd\'s blocks',
    handler: gettxspendingprevout,
  },
};

/** Fields the adapter adds to results it otherwise forwards. */
export const OWN_FIELDS: OwnAnswer[] = [
  { name: 'getblockchaininfo.initialblockdownload', reason: 'btcd lacks it; Core\'s rule: tip time older than 24 h (electrs waits while true)' },
  { name: 'getblockchaininfo.verificationprogress', reason: 'btcd omits it; blocks / headers (Esplora\'s electrs requires the field)' },
  { name: 'getmempoolinfo.loaded', reason: 'btcd lacks it; always true, btcd has no persisted mempool to load' },
  { name: 'getmempoolinfo.total_fee', reason: 'btcd lacks it; sum of btcd getrawmempool verbose fees' },
  { name: 'getmempoolinfo.mempoolminfee/minrelaytxfee/incrementalrelayfee', reason: 'btcd lacks them; all equal btcd\'s relay fee (getinfo.relayfee), its only fee floor (ElectrumX reads them)' },
  { name: 'getrawmempool verbose entries', reason: 'btcd\'s entry shape differs; rebuilt in Core\'s getmempoolentry shape' },
  { name: 'getblock verbosity 3: vin[].prevout and fee', reason: 'btcd answers verbosity 3 like 2; prevouts from btcd getrawtransaction of each funding tx' },
  { name: 'getrawtransaction verbosity 2: vin[].prevout and fee', reason: 'btcd has no verbosity 2; same prevout lookup as getblock 3' },
  { name: 'getrawtransaction with blockhash: in_active_chain', reason: 'btcd takes no blockhash; the adapter checks btcd\'s reported block' },
];

/** REST endpoints (btcd has no REST interface); every byte comes from btcd's blocks and txindex. */
export const OWN_REST: OwnAnswer[] = [
  { name: '/rest/blockhashbyheight/<h>.<bin|hex|json>', reason: 'electrs 0.12 (bindex) reads the chain over REST; from the chain store, else btcd getblockhash' },
  { name: '/rest/headers/<count>/<hash>.<bin|hex> and /rest/headers/<hash>.<bin|hex>?count=N', reason: 'bindex; headers of the chain store (btcd\'s raw blocks), else btcd getblockhash + getblockheader (raw)' },
  { name: '/rest/block/<hash>.<bin|hex>', reason: 'bindex; btcd getblock <hash> 0 (raw bytes), kept in the chain store' },
  { name: '/rest/spenttxouts/<hash>.<bin|hex|json>', reason: 'bindex (Core 30 format); each input\'s spent output from btcd getrawtransaction of its funding tx' },
  { name: '/rest/blockpart/<hash>.<bin|hex>?offset=O&size=S', reason: 'bindex (Core 31) fetches single transactions this way; a byte range of btcd\'s raw block' },
];

/** Every own answer as one flat list, for the README and `lab status --json` consumers. */
export function ownAnswerList(): OwnAnswer[] {
  return [...Object.values(OWN_METHODS).map(({ name, reason }) => ({ name, reason })), ...OWN_FIELDS, ...OWN_REST];
}
