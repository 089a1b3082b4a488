import type { WebSocket } from 'ws';

/** How long a closed socket's peer has to answer the close before the connection is cut. */
export const CLOSE_GRACE_MS = 2_000;

/**
 * Starts the closing handshake and cuts the connection if the peer does not answer within the grace. `ws` itself
 * waits 30 s, and a client that reads nothing (its socket paused by our backpressure) never answers: the server's
 * shutdown would wait that long for it.
 */
export function closeSocket(socket: WebSocket, code: number, reason: string): void {
  // A close reason is at most 123 bytes.
  socket.close(code, Buffer.from(reason).subarray(0, 120).toString());
  const cut = setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));
}
