import { connect, type Socket } from 'node:net';

import request from 'supertest';

import { AUTH, newPlant } from './support/factories.js';
import { TEST_TOKEN } from './support/environment.js';
import { useTestApp } from './support/app.js';
import { blockEventLoop } from './support/event-loop.js';

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A connection, made and ready: what is written on it reaches the server's socket at once. */
function connection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** The one answer to the one request written on `socket` (`Connection: close`). */
function answerOn(socket: Socket): Promise<Answer> {
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

function requestText(method: string, path: string, body?: unknown): string {
  const text = body === undefined ? '' : JSON.stringify(body);
  return (
    `${method} ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n` +
    `Authorization: Bearer ${TEST_TOKEN}\r\n` +
    (body === undefined
      ? ''
      : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\n`) +
    `\r\n${text}`
  );
}

/**
 * The requests written while the process is stuck for `stuckMs` (its event
 * loop busy, as an overloaded one is), as they then wait in their sockets;
 * then their answers. The application runs in this process: blocking this
 * event loop blocks it.
 */
async function sentWhileStuck(
  url: string,
  requests: ReadonlyArray<readonly [string, string, unknown?]>,
  stuckMs: number,
): Promise<{ answers: Answer[]; answeredInMs: number }> {
  const sockets = await Promise.all(requests.map(() => connection(url)));
  const answers = sockets.map(answerOn);
  sockets.forEach((socket, index) => {
    const [method, path, body] = requests[index];
    socket.write(requestText(method, path, body));
  });
  // The requests wait, unread.
  blockEventLoop(stuckMs);
  const stuckUntil = performance.now();
  const all = await Promise.all(answers);
  return { answers: all, answeredInMs: performance.now() - stuckUntil };
}

describe('overload: requests the process is too late for are answered 503 at once', () => {
  const testApp = useTestApp({ HTTP_SHED_LAG_MS: '150', LOG_LEVEL: 'info' });

  it('answers the requests that waited past HTTP_SHED_LAG_MS 503, Retry-After and the Error body, writing nothing', async () => {
    const plants = Array.from({ length: 5 }, () => newPlant());

    const { answers, answeredInMs } = await sentWhileStuck(
      testApp.url,
      [...plants.map((plant) => ['POST', '/plants', plant] as const), ['GET', '/plants'] as const],
      400,
    );

    for (const answer of answers) {
      expect(answer.status).toBe(503);
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(answer.body)).toEqual({
        error: 503,
        message: 'The service is overloaded; retry later',
      });
    }
    // At once: no database, no waiting.
    expect(answeredInMs).toBeLessThan(1_000);
    const { rows } = await testApp.db.query<{ count: string }>('SELECT count(*)::text AS count FROM plants');
    expect(rows[0].count).toBe('0');
  });

  it('still answers health checks and metrics, which count the requests turned away', async () => {
    const { answers } = await sentWhileStuck(
      testApp.url,
      [
        ['GET', '/plants'],
        ['GET', '/health/live'],
        ['GET', '/health/ready'],
      ],
      400,
    );

    expect(answers.map((answer) => answer.status)).toEqual([503, 200, 200]);
    const metrics = await request(testApp.server).get('/metrics');
    expect(metrics.text).toMatch(/^http_requests_shed_total [1-9]\d*$/m);
    expect(metrics.text).toMatch(
      /^http_requests_total\{method="GET",route="unmatched",status="503"\} [1-9]\d*$/m,
    );
  });

  it('takes requests again as soon as the event loop has caught up, and logs the episode once', async () => {
    await sentWhileStuck(testApp.url, [['GET', '/plants']], 400);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const created = await request(testApp.server).post('/plants').set(AUTH).send(newPlant());

    expect(created.status).toBe(200);
    const lines = testApp.logs.entries().filter((line) => line.context === 'LoadShedder');
    expect(lines.some((line) => line.level === 'warn' && /runs \d+ ms late/.test(String(line.msg)))).toBe(
      true,
    );
    expect(
      lines.some((line) =>
        /caught up: (1 request was|\d+ requests were) answered 503/.test(String(line.msg)),
      ),
    ).toBe(true);
    // Each 503 is not a warning of its own: the episode is.
    expect(
      testApp.logs
        .entries()
        .filter((line) => /answered 503/.test(String(line.msg)) && line.context === 'HttpErrorFilter'),
    ).toEqual([]);
  });

  it('serves as usual when the event loop keeps time', async () => {
    const { answers } = await sentWhileStuck(testApp.url, [['POST', '/plants', newPlant()]], 0);

    expect(answers[0].status).toBe(200);
  });
});

describe('overload: HTTP_SHED_LAG_MS=0 never turns a request away', () => {
  const testApp = useTestApp({ HTTP_SHED_LAG_MS: '0' });

  it('serves a request that waited, however late', async () => {
    const { answers } = await sentWhileStuck(testApp.url, [['GET', '/plants']], 400);

    expect(answers[0].status).toBe(200);
  });
});
