import type { Server } from 'node:http';
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';

/**
 * One port, several listening sockets, one HTTP server.
 *
 * Node's event loop (libuv, since 1.45: Node 20 and later) accepts one
 * connection per listening socket per turn of the loop, and leaves the
 * others in the kernel's accept queue until the next turn. A busy service's
 * turns are long (each runs the requests of every socket that is ready), so
 * when many clients connect at once, the queue drains at one connection per
 * turn, and the last to connect wait seconds to be accepted while those
 * accepted are answered at once (libuv#3696, nodejs/node#57364). A bigger
 * backlog lets more wait; it does not make them wait less.
 *
 * So the server listens on `count` sockets bound to the same port with
 * SO_REUSEPORT (Linux, some BSDs): the kernel spreads new connections over
 * them, each is accepted on its own, and a turn of the loop takes up to
 * `count` connections. The others are plain `net` servers that hand each
 * connection to the HTTP server (`'connection'`, as Node documents for
 * injecting one), so every connection is the HTTP server's as if it had
 * accepted it: its timeouts, its idle and forced closing
 * (`closeIdleConnections`, `closeAllConnections`), its TLS when it has one.
 *
 * A port that another process listens on fails with EADDRINUSE, as it does
 * with one socket, even when that process shares it with SO_REUSEPORT.
 */
export class PortListeners {
  private readonly others: NetServer[] = [];

  /** `count` sockets in all: `server`'s own and `count - 1` others. */
  constructor(
    private readonly server: Server,
    private readonly count: number,
  ) {}

  /** Listens on `port` (0: any free one) and `host` (unset: every address), then calls back. */
  listen(port: number, host: string | undefined, callback: (error?: Error) => void): void {
    if (this.count === 1) {
      this.server.listen(port, host, () => callback());
      return;
    }
    if (port === 0) {
      this.listenShared(port, host, callback);
      return;
    }
    // SO_REUSEPORT shares a port with any socket of the same user that has it too: a second
    // instance started on this port would be granted it, and the kernel would split the
    // connections between the two. A socket bound without it first finds the port taken, and
    // the start fails as Node's one socket would, with EADDRINUSE.
    const probe = createServer();
    probe.once('error', callback);
    probe.listen({ port, host }, () => probe.close(() => this.listenShared(port, host, callback)));
  }

  /**
   * Stops every socket accepting; resolves when the connections accepted by
   * the others have closed, as `server.close()`'s callback does for its own.
   */
  async close(): Promise<void> {
    const others = this.others.splice(0);
    await Promise.all(others.map((other) => new Promise((resolve) => other.close(resolve))));
  }

  private listenShared(port: number, host: string | undefined, callback: (error?: Error) => void): void {
    this.server.listen({ port, host, reusePort: true }, () => {
      // The port actually bound, for the others to share when any free one was asked for.
      const bound = (this.server.address() as AddressInfo).port;
      this.listenOthers(bound, host).then(
        () => callback(),
        (error: unknown) => {
          void this.close();
          callback(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  private async listenOthers(port: number, host: string | undefined): Promise<void> {
    for (let index = 1; index < this.count; index++) {
      // Nagle's algorithm off, as Node's HTTP server has it on its own sockets.
      const other = createServer({ noDelay: true }, (socket: Socket) =>
        this.server.emit('connection', socket),
      );
      this.others.push(other);
      await new Promise<void>((resolve, reject) => {
        other.once('error', reject);
        other.listen({ port, host, reusePort: true }, () => {
          other.off('error', reject);
          // A failure to accept is the HTTP server's, as it would be on its own socket.
          other.on('error', (error) => this.server.emit('error', error));
          resolve();
        });
      });
    }
  }
}
