/**
 * Listens as the service does: on HTTP_LISTENERS sockets of one port (64 on
 * Linux, 1 elsewhere), bound with SO_REUSEPORT, since Node accepts one
 * connection per listening socket per turn of its event loop (the service's
 * `PortListeners`). The other sockets hand their connections to `server`.
 * Returns what stops them all from accepting, and calls back when the
 * server's connections have closed (`server.close()`'s callback).
 */
import { createServer } from 'node:net';

export function listenAsTheService(server, { port, host }) {
  const listeners = Number(process.env.HTTP_LISTENERS ?? (process.platform === 'linux' ? 64 : 1));
  const others = Array.from({ length: listeners - 1 }, () =>
    createServer({ noDelay: true }, (socket) => server.emit('connection', socket)),
  );
  server.listen({ port, host, reusePort: listeners > 1 });
  for (const other of others) {
    other.listen({ port, host, reusePort: true });
  }
  return (callback) => {
    for (const other of others) {
      other.close();
    }
    server.close(callback);
  };
}
