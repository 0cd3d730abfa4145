import type { Server } from 'node:http';
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';

/**
 * One port, several listening sockets (SO_REUSEPORT), one HTTP server: Node's event loop accepts one
 * connection per listening socket per turn, so when many clients connect at once the last wait in the
 * kernel's queue (libuv#3696, nodejs/node#57364; docs/operations.md#overload). The extra sockets are
 * plain `net` servers that hand each connection to the HTTP server (`'connection'`, as Node documents),
 * so its timeouts, closing and TLS apply as on its own socket.
 */
export class PortListeners {
  private readonly others: NetServer[] = [];

  constructor(
    private readonly server: Server,
    private readonly count: number,
  ) {}

  listen(port: number, host: string | undefined, callback: (error?: Error) => void): void {
    if (this.count === 1) {
      this.server.listen(port, host, () => callback());
      return;
    }
    if (port === 0) {
      this.listenShared(port, host, callback);
      return;
    }
    // With SO_REUSEPORT a second instance started on this port would share it; a socket bound
    // without it fails first, with EADDRINUSE, as Node's one socket would.
    const probe = createServer();
    probe.once('error', callback);
    probe.listen({ port, host }, () => probe.close(() => this.listenShared(port, host, callback)));
  }

  /** Resolves when the others' connections have closed, as `server.close()`'s callback does for its own. */
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
