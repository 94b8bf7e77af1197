/**
 * The Electrum protocol over WebSocket (ws://, wss://), as ElectrumX (aiorpcx's WSTransport) and
 * Fulcrum (WebSocket.cpp) serve it: one JSON-RPC message, or one batch array, per text frame, with
 * no newline. The framing is the `ws` package's; what is ours is the mapping of Electrum's lines
 * onto frames and of the line cap onto the largest message we accept.
 */
import net from 'node:net';
import WebSocket from 'ws';
import { formatHostPort } from '../core/server-address';
import { arrivalStamper } from '../core/socket-arrival';

export interface WebSocketWireOptions {
  host: string;
  port: number;
  tls: boolean;
  tlsInsecure: boolean;
  /** What a wss:// connection trusts (the client's trustedCertificates: Node's roots plus --ca). */
  ca: Array<string | Buffer> | undefined;
  localAddress?: string;
  /** The line cap: a message longer than this closes the connection (close code 1009), as a longer line does over TCP. */
  maxMessageBytes: number;
  /** Whether each chunk's arrival stamp (core/socket-arrival) carries our loop's active time too. */
  measureLoop: boolean;
}

/** The code `ws` gives the error of a message over `maxPayload`. */
export const MESSAGE_TOO_LONG = 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH';

export function openWebSocket(o: WebSocketWireOptions): WebSocket {
  const url = `${o.tls ? 'wss' : 'ws'}://${formatHostPort(o.host, o.port)}/`;
  const ws = new WebSocket(url, {
    maxPayload: o.maxMessageBytes,
    // No permessage-deflate: its zlib work on both ends would be measured as the server's latency.
    perMessageDeflate: false,
    ...(o.localAddress !== undefined ? { localAddress: o.localAddress } : {}),
    ...(o.tls ? { rejectUnauthorized: !o.tlsInsecure, ...(o.ca ? { ca: o.ca } : {}), ...(net.isIP(o.host) ? {} : { servername: o.host }) } : {}),
  });
  // `ws` reads, unmasks and checks a frame inside its socket's 'data' listener and emits the message
  // there: our stamp goes on first, in the same synchronous run in which `ws` takes the socket over.
  ws.once('upgrade', (res) => res.socket.prependListener('data', arrivalStamper(o.measureLoop)));
  return ws;
}

/**
 * Sends what the client would have written on a TCP socket: each of its lines (a request, a batch
 * array, or a padded write's message) as one text frame of its own, without the newline.
 */
export function sendLines(ws: WebSocket, text: string): void {
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
    if (nl > start) ws.send(text.slice(start, nl));
    start = nl + 1;
  }
  if (start < text.length && text.slice(start).trim() !== '') ws.send(text.slice(start));
}
