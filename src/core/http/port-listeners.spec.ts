import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

import { PortListeners } from './port-listeners.js';

import { blockEventLoop } from '../../../test/support/event-loop.js';

/** Sockets listening on `port`, from the kernel's own tables. */
async function listeningSockets(port: number): Promise<number> {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      // State 0A: LISTEN.
      if (local?.endsWith(`:${hexPort}`) && state === '0A') {
        count++;
      }
    }
  }
  return count;
}

/** Connections made and left open; their handshakes complete in the kernel, whatever the event loop does. */
function openConnections(port: number, count: number): Promise<Socket[]> {
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Socket>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => resolve(socket));
          socket.once('error', reject);
        }),
    ),
  );
}

/** `count` requests at once, each on a connection of its own. */
function requestEach(port: number, count: number): Promise<Response[]> {
  return Promise.all(
    Array.from({ length: count }, () =>
      fetch(`http://127.0.0.1:${port}/`, { headers: { Connection: 'close' } }),
    ),
  );
}

const linux = process.platform === 'linux';

describe('PortListeners', () => {
  let server: Server;
  let listeners: PortListeners;
  let clients: Socket[] = [];
  /** Connections the server has accepted, on whichever socket. */
  let accepted = 0;

  function listen(count: number): Promise<number> {
    server = createServer((_request, response) => response.end('ok'));
    accepted = 0;
    server.on('connection', () => accepted++);
    listeners = new PortListeners(server, count);
    return new Promise((resolve, reject) =>
      listeners.listen(0, '127.0.0.1', (error) =>
        error ? reject(error) : resolve((server.address() as AddressInfo).port),
      ),
    );
  }

  afterEach(async () => {
    for (const client of clients) {
      client.destroy();
    }
    clients = [];
    server.closeAllConnections();
    await Promise.all([new Promise((resolve) => server.close(resolve)), listeners.close()]);
  });

  (linux ? it : it.skip)('listens on as many sockets of one port as asked', async () => {
    const port = await listen(8);

    expect(await listeningSockets(port)).toBe(8);
  });

  it('listens on the one socket of the server when one is asked, as Node does, which no other may share', async () => {
    const port = await listen(1);

    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    const other = createNetServer();
    const refused = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      other.once('error', resolve);
      other.listen({ port, host: '127.0.0.1', reusePort: linux }, () =>
        other.close(() => resolve(undefined)),
      );
    });
    expect(refused?.code).toBe('EADDRINUSE');
  });

  (linux ? it : it.skip)(
    'refuses a port that another instance listens on, with EADDRINUSE, instead of sharing it',
    async () => {
      const port = await listen(8);
      const second = createServer((_request, response) => response.end('second'));
      const secondListeners = new PortListeners(second, 8);

      const refused = await new Promise<NodeJS.ErrnoException | undefined>((resolve) =>
        secondListeners.listen(port, '127.0.0.1', resolve),
      );
      await secondListeners.close();
      if (second.listening) {
        await new Promise((resolve) => second.close(resolve));
      }

      expect(refused?.code).toBe('EADDRINUSE');
      expect(second.listening).toBe(false);
      // The first keeps the port, whole: every connection is its own.
      expect(await listeningSockets(port)).toBe(8);
      const bodies = await Promise.all((await requestEach(port, 20)).map((response) => response.text()));
      expect(new Set(bodies)).toEqual(new Set(['ok']));
    },
  );

  (linux ? it : it.skip)(
    'accepts several waiting connections in one turn of the event loop, not one per turn',
    async () => {
      const port = await listen(16);

      // 64 connections arrive while the event loop is busy; then one turn runs (its poll
      // phase accepts), and its check phase (setImmediate) counts what that turn accepted.
      const acceptedInOneTurn = await new Promise<number>((resolve) => {
        setImmediate(() => {
          void openConnections(port, 64).then((sockets) => (clients = sockets));
          setTimeout(() => {
            blockEventLoop(200);
            const before = accepted;
            setImmediate(() => resolve(accepted - before));
          }, 0);
        });
      });

      // The kernel spreads the connections over the 16 sockets; each takes one per turn.
      expect(acceptedInOneTurn).toBeGreaterThan(4);
      expect(acceptedInOneTurn).toBeLessThanOrEqual(16);
    },
  );

  (linux ? it : it.skip)('serves every connection, whichever socket accepted it, as the server', async () => {
    const port = await listen(8);
    const seen = new Set<Server>();
    server.on('request', (request: { socket: { server?: Server } }) => {
      if (request.socket.server) {
        seen.add(request.socket.server);
      }
    });

    const statuses = (await requestEach(port, 100)).map((response) => response.status);

    expect(statuses.every((status) => status === 200)).toBe(true);
    // Timeouts, idle and forced closing are the HTTP server's, for every connection.
    expect([...seen]).toEqual([server]);
  });

  (linux ? it : it.skip)(
    'stops every socket accepting on close, and waits for the connections they accepted',
    async () => {
      const port = await listen(8);
      clients = await openConnections(port, 32);
      // Each connection accepted (by whichever socket) before the close.
      while (accepted < 32) {
        await new Promise((resolve) => setImmediate(resolve));
      }

      let closed = false;
      const closing = listeners.close().then(() => (closed = true));
      server.close();

      expect(await listeningSockets(port)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closed).toBe(false);

      server.closeAllConnections();
      await closing;
      expect(closed).toBe(true);
    },
  );
});
