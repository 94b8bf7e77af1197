/**
 * The Electrum protocol over WebSocket (ws://, wss://): the Electrum transport's connection set and
 * tip follower, whose client frames each message as a WebSocket message instead of a line
 * (src/electrum/websocket-wire.ts; the target's `websocket` reaches it through socketOptions).
 * A transport of its own so that the report names its calls and a stored address keeps its scheme.
 */
import { TRANSPORT_LABELS, TRANSPORT_SCHEMES } from '../servers/profiles';
import { ELECTRUM } from './electrum';
import type { Transport } from './transport';

export const WEBSOCKET: Transport = {
  ...ELECTRUM,
  label: TRANSPORT_LABELS.websocket,
  scheme: TRANSPORT_SCHEMES.websocket,
};
