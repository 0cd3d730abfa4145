/**
 * The floor: a minimal node:http + pg server implementing the same contract
 * as POST /plants (bearer check, JSON validation, insert, 200 Plant, 409),
 * written the way a careful engineer would without a framework. The service
 * is measured against it.
 *
 *   FLOOR_PORT=4000 DATABASE_URL=postgres://… AUTH_TOKENS=… node bench/floor-server.js
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

import pg from 'pg';

import { INSERT_PLANT } from './insert-plant.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const digests = (process.env.AUTH_TOKENS ?? '').split(',').map((token) => sha256(token.trim()));
const LIMIT = 16 * 1024;

function sha256(text) {
  return createHash('sha256').update(text).digest();
}

function send(response, status, body) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

function fail(response, status, message) {
  send(response, status, { error: status, message });
}

function authorized(header) {
  const match = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i.exec(header ?? '');
  if (!match) {
    return false;
  }
  const presented = sha256(match[1]);
  let ok = false;
  for (const digest of digests) {
    ok = timingSafeEqual(presented, digest) || ok;
  }
  return ok;
}

function validText(value, notBlank) {
  return (
    typeof value === 'string' &&
    value.length >= 1 &&
    [...value].length <= 255 &&
    !value.includes('\u0000') &&
    (!notBlank || value.trim().length > 0)
  );
}

createServer((request, response) => {
  if (request.method !== 'POST' || request.url !== '/plants') {
    return fail(response, 404, 'Not found');
  }
  if (!authorized(request.headers.authorization)) {
    return fail(response, 401, 'The bearer token is invalid or expired');
  }
  if (!/^application\/json\b/i.test(request.headers['content-type'] ?? '')) {
    return fail(response, 415, 'Content-Type must be application/json');
  }
  const chunks = [];
  let size = 0;
  request.on('data', (chunk) => {
    size += chunk.length;
    if (size > LIMIT) {
      fail(response, 413, 'Request body is too large');
      request.destroy();
    } else {
      chunks.push(chunk);
    }
  });
  request.on('end', async () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return fail(response, 400, 'Request body is not valid JSON');
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return fail(response, 400, 'Request body must be a JSON object');
    }
    const unknown = Object.keys(body).filter((key) => key !== 'id' && key !== 'name' && key !== 'tag');
    if (
      unknown.length > 0 ||
      !Number.isSafeInteger(body.id) ||
      !validText(body.name, true) ||
      (body.tag !== undefined && !validText(body.tag, false))
    ) {
      return fail(response, 400, 'Invalid NewPlant');
    }
    const tag = body.tag ?? null;
    try {
      const { rows } = await pool.query({ ...INSERT_PLANT, values: [String(body.id), body.name, tag] });
      const row = rows[0];
      if (!row) {
        return fail(response, 503, 'Retry');
      }
      if (!row.created && (row.name !== body.name || row.tag !== tag)) {
        return fail(response, 409, `Plant id ${body.id} is already taken`);
      }
      send(response, 200, row.tag === null ? { name: row.name } : { name: row.name, tag: row.tag });
    } catch {
      fail(response, 503, 'The database is unavailable');
    }
  });
}).listen(Number(process.env.FLOOR_PORT ?? 4000), '127.0.0.1');
