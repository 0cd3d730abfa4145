/**
 * The HTTP ceiling: `node:http` answering `POST /plants` with no database at
 * all. The same bearer check (constant time), media type check, 16 KiB limit
 * and JSON parse as the floor, and the same response headers, then a canned
 * 200: what this machine's Node can answer, before anything is stored. It
 * listens on as many sockets as the service (HTTP_LISTENERS).
 *
 *   PORT=4001 AUTH_TOKENS=… node bench/ceiling-server.js
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

import { authorized } from './bearer.js';
import { SECURITY_HEADERS } from './headers.js';
import { listenAsTheService } from './listen.js';

const BODY_LIMIT = 16 * 1024;
const CANNED = JSON.stringify({ name: 'Bench plant', tag: 'bench' });
const HEADERS = [...SECURITY_HEADERS, 'Content-Type', 'application/json; charset=utf-8'];

function answer(response, status, text) {
  response.writeHead(status, [
    'X-Request-Id',
    randomUUID(),
    ...HEADERS,
    'Content-Length',
    String(Buffer.byteLength(text)),
  ]);
  response.end(text);
}

function fail(response, status, message) {
  answer(response, status, JSON.stringify({ error: status, message }));
}

const server = createServer((request, response) => {
  const path = request.url?.split('?')[0];
  if (request.method !== 'POST' || path !== '/plants') {
    return fail(response, 404, `Cannot ${request.method} ${request.url}`);
  }
  if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
    return fail(response, 415, 'Content-Type must be application/json');
  }
  const chunks = [];
  let size = 0;
  request.on('data', (chunk) => {
    size += chunk.length;
    if (size <= BODY_LIMIT) {
      chunks.push(chunk);
    }
  });
  request.on('end', () => {
    if (size > BODY_LIMIT) {
      return fail(response, 413, `Request body is larger than ${BODY_LIMIT} bytes`);
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch (error) {
      return fail(response, 400, `Request body is not valid JSON: ${error.message}`);
    }
    if (!authorized(request.headers.authorization)) {
      return fail(response, 401, 'The bearer token is invalid or expired');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return fail(response, 400, 'Request body must be a JSON object');
    }
    answer(response, 200, CANNED);
  });
});
server.keepAliveTimeout = 5_000;
const close = listenAsTheService(server, {
  port: Number(process.env.PORT ?? 4001),
  host: process.env.HOST ?? '127.0.0.1',
});

process.once('SIGTERM', () => {
  close();
  server.closeIdleConnections();
});
