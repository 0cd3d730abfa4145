/**
 * The floor: the service's creates, reads by id and pages of plants
 * (docs/api.md) hand-written on `node:http` and `pg`, the way a careful
 * engineer would write them without a framework. `npm run bench` measures the
 * service against it.
 *
 * - `POST /plants`: the body read and checked as the service does (16 KiB,
 *   `application/json` in UTF-8, JSON nested 32 levels at most, ids kept exact
 *   to the last digit, the same field rules and messages), the bearer token
 *   checked in constant time, then natural batching: at most
 *   DATABASE_WRITE_CONCURRENCY (2) statements in flight and no timer; creates
 *   that arrive meanwhile leave together in the next
 *   `INSERT … SELECT FROM unnest(…) ON CONFLICT (id) DO NOTHING RETURNING id`.
 *   Ids found taken are read back, to answer 200 (the same plant) or 409
 *   (another one); a 200 is sent only after its statement has committed.
 * - `GET /plants/{id}` (with its `ETag`, `"<version>"`) and
 *   `GET /plants?limit=&after=&tag=` (keyset pages, `Link` to the next one):
 *   one prepared statement each.
 * - With WEBHOOK_URLS, as the service: the statement that creates plants
 *   records `plant.created` for each in the webhook outbox (delivering them is
 *   left out); without, no outbox row, as the service writes none.
 * - The same Error bodies, `X-Request-Id`, security headers, 404 and 405 with
 *   `Allow`, and the same bounds on waiting for the database (503).
 * - The RateLimit fields of each answer past the token check, and of a wrong
 *   token's 401, counted in fixed windows as the service counts them (without
 *   its 429s: the bench's limit is set above what it sends).
 * - The same listening sockets: HTTP_LISTENERS (64 on Linux, 1 elsewhere) bound
 *   to the port with SO_REUSEPORT, as `PortListeners` does, since Node accepts
 *   one connection per listening socket per turn of the event loop.
 *
 * - With FLOOR_DATABASE=none, no database: every statement is answered on the
 *   next turn of the event loop with the rows PostgreSQL would give (creates all inserted, reads and pages
 *   synthesised in the preloaded plants' shape: `Plant <id>`, every 4th tagged
 *   fern), so that what the database costs the floor is the difference
 *   between the two (the stack's bound, `npm run bench`).
 *
 * Left out, so that a change to the API is made in the service alone: the
 * other routes (`PATCH`, `DELETE`; `npm run bench` compares the service's
 * patches with another build of it, `--baseline`) and conditional requests;
 * and logs, metrics, the rate limits' 429s and JWTs (static tokens only).
 *
 *   PORT=4000 DATABASE_URL=postgres://… AUTH_TOKENS=… node bench/floor-server.js
 */
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { parse as parseQueryString } from 'node:querystring';

import pg from 'pg';

import { matchesAny, sha256 } from './bearer.js';
import { SECURITY_HEADERS } from './headers.js';
import { listenAsTheService } from './listen.js';

const BODY_LIMIT = 16 * 1024;
const MAX_JSON_DEPTH = 32;
const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const WRITE_CONCURRENCY = Number(process.env.DATABASE_WRITE_CONCURRENCY ?? 2);
const MAX_BATCH_SIZE = 256;
const MAX_WRITE_ATTEMPTS = 3;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const INT64_RULE = `must be an integer from ${INT64_MIN} to ${INT64_MAX}`;
const NAME_RULE = 'name must be a string of 1 to 255 characters that is not only white space, without U+0000';
const TAG_RULE = 'tag must be a string of 1 to 255 characters, without U+0000';
const LIMIT_RULE = `limit must be an integer from 1 to ${MAX_PAGE_SIZE}`;
const JSON_MEDIA_TYPE = 'application/json';
/** The service's limit per token, in its fixed windows, and the RateLimit fields it answers with. */
const RATE_LIMIT = Number(process.env.RATE_LIMIT_PER_TOKEN ?? 100_000);
const RATE_WINDOW_MS = 60_000;
const RATE_LIMIT_POLICY = `"token";q=${RATE_LIMIT};w=${RATE_WINDOW_MS / 1000}`;
/** The webhook subscribers: the service records an event per change only when there are some. */
const SUBSCRIBERS = (process.env.WEBHOOK_URLS ?? '')
  .split(',')
  .map((entry) => entry.trim())
  .filter((entry) => entry.length > 0);

// The same pool size and bounds as the service: a request answers 503 within
// about two seconds when the database is gone or stuck.
const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: 10,
  application_name: 'plant-store-floor',
  connectionTimeoutMillis: 500,
  statement_timeout: 1000,
  query_timeout: 1250,
  idle_in_transaction_session_timeout: 5000,
  keepAlive: true,
  // Connections are kept while the floor idles. pg closes a connection idle for 10 s by default, and
  // the floor's would close together in the middle of the service's runs, stalling its statements
  // (docs/performance.md#pool-size-and-idle-connections).
  idleTimeoutMillis: 0,
});
// An idle connection the server dropped is replaced by the pool; it must not end the process.
pool.on('error', () => undefined);

/** pg hands a bigint over as its decimal digits (a string): no id loses a digit. */
const STATEMENTS = {
  insertBatch: `INSERT INTO plants (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
                ON CONFLICT (id) DO NOTHING RETURNING id`,
  selectStored: 'SELECT id, name, tag FROM plants WHERE id = ANY ($1::bigint[])',
  // As the service's outbox: one plant.created event per plant inserted, for every subscriber.
  insertBatchWithEvents: `WITH inserted AS (
                  INSERT INTO plants (id, name, tag) SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[])
                  ON CONFLICT (id) DO NOTHING RETURNING id, name, tag
                ), events AS (
                  INSERT INTO webhook_deliveries (event_id, event_type, subscriber, payload)
                  SELECT event.id, 'plant.created', subscriber.url, event.payload
                  FROM (
                    SELECT gen_random_uuid() AS id,
                           json_strip_nulls(json_build_object('id', id, 'name', name, 'tag', tag))::text AS payload
                    FROM inserted
                  ) AS event
                  CROSS JOIN unnest($4::text[]) AS subscriber (url)
                )
                SELECT id FROM inserted`,
  selectOne: 'SELECT id, name, tag, version FROM plants WHERE id = $1',
  page: 'SELECT id, name, tag FROM plants ORDER BY id LIMIT $1',
  pageAfter: 'SELECT id, name, tag FROM plants WHERE id > $2 ORDER BY id LIMIT $1',
  pageTag: 'SELECT id, name, tag FROM plants WHERE tag = $2 ORDER BY id LIMIT $1',
  pageTagAfter: 'SELECT id, name, tag FROM plants WHERE tag = $2 AND id > $3 ORDER BY id LIMIT $1',
};

const NO_DATABASE = process.env.FLOOR_DATABASE === 'none';

function query(name, values) {
  if (NO_DATABASE) {
    // On a later turn of the event loop, as an answer from a socket comes: creates that arrive
    // meanwhile still leave together, as they do while a statement is out.
    return new Promise((resolve) => setImmediate(resolve, { rows: rowsWithoutDatabase(name, values) }));
  }
  return pool.query({ name, text: STATEMENTS[name], values });
}

/** What each statement would answer on the preloaded table (ids within 2^53), where every id asked for is stored. */
function rowsWithoutDatabase(name, values) {
  const preloaded = (id) => ({
    id,
    name: `Plant ${id}`,
    tag: Number(id) % 4 === 0 ? 'fern' : null,
    version: 1,
  });
  switch (name) {
    case 'insertBatch':
    case 'insertBatchWithEvents':
      return values[0].map((id) => ({ id }));
    case 'selectStored':
      return values[0].map(preloaded);
    case 'selectOne':
      return [preloaded(values[0])];
    case 'page':
    case 'pageAfter': {
      const after = Number(values[1] ?? 0);
      return Array.from({ length: values[0] }, (_, index) => preloaded(String(after + index + 1)));
    }
    default: {
      // Pages of one tag: every 4th plant.
      const after = Number(values[2] ?? 0);
      const first = after + 4 - (after % 4);
      return Array.from({ length: values[0] }, (_, index) => preloaded(String(first + 4 * index)));
    }
  }
}

// ---------------------------------------------------------------------------
// Answers

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const RETRY_LATER = ['Retry-After', '1'];

/**
 * The headers every answer starts with: its request id (the client's, when acceptable), helmet's,
 * then once the token is known, what is left of its rate limit.
 */
function baseHeaders(request) {
  const offered = request.headers['x-request-id'];
  const id = typeof offered === 'string' && ACCEPTABLE_REQUEST_ID.test(offered) ? offered : randomUUID();
  const headers = ['X-Request-Id', id, ...SECURITY_HEADERS];
  if (request.rateLimit !== undefined) {
    headers.push('RateLimit-Policy', RATE_LIMIT_POLICY, 'RateLimit', request.rateLimit);
  }
  return headers;
}

const FAILURE_LIMIT = 20;
const tokenWindows = new Map();
const failureWindows = new Map();

/** Counts a hit of `key` in its fixed window, as the service's storage does: what is left, and for how long. */
function countHit(windows, key, limit) {
  const now = Date.now();
  let window = windows.get(key);
  if (window === undefined || window.endsAt <= now) {
    window = { hits: 0, endsAt: now + RATE_WINDOW_MS };
    windows.set(key, window);
  }
  window.hits++;
  return `r=${Math.max(0, limit - window.hits)};t=${Math.ceil((window.endsAt - now) / 1000)}`;
}

/** The service's lockout counts each address's failed tokens; the contract check sends a few. */
function countFailure(request) {
  const left = countHit(failureWindows, request.socket.remoteAddress, FAILURE_LIMIT);
  return [
    'RateLimit-Policy',
    `"auth-failures";q=${FAILURE_LIMIT};w=${RATE_WINDOW_MS / 1000}`,
    'RateLimit',
    `"auth-failures";${left}`,
  ];
}

/** Counts the request in its token's window; the limit is set above what a bench sends. */
function countRequest(request) {
  request.rateLimit = `"token";${countHit(tokenWindows, request.headers.authorization, RATE_LIMIT)}`;
}

function sendJson(request, response, status, text, extraHeaders) {
  const headers = baseHeaders(request);
  if (extraHeaders) {
    headers.push(...extraHeaders);
  }
  headers.push('Content-Type', JSON_CONTENT_TYPE, 'Content-Length', String(Buffer.byteLength(text)));
  response.writeHead(status, headers);
  response.end(text);
}

/** An Error body: `{ "error": <status>, "message": <text> }`. */
function fail(request, response, status, message, extraHeaders) {
  sendJson(request, response, status, JSON.stringify({ error: status, message }), extraHeaders);
}

function failStore(request, response, error) {
  if (isDatabaseUnavailable(error)) {
    fail(request, response, 503, 'The database is unavailable; retry later', RETRY_LATER);
  } else if (error?.code === '23505') {
    fail(request, response, 409, 'The request conflicts with a record already stored');
  } else {
    fail(request, response, 500, 'Internal server error');
  }
}

/** A stored row as the reads answer it (the NewPlant shape), its id with every digit. */
function plantJson(row) {
  const name = JSON.stringify(row.name);
  return row.tag === null
    ? `{"id":${row.id},"name":${name}}`
    : `{"id":${row.id},"name":${name},"tag":${JSON.stringify(row.tag)}}`;
}

// ---------------------------------------------------------------------------
// Routing: the same paths as the service (letter case and a trailing slash ignored, as Express does)

const COLLECTION_PATH = /^\/plants\/?$/i;
const ITEM_PATH = /^\/plants\/([^/]+)\/?$/i;
const NO_BODY = Symbol('no body');

function handle(request, response) {
  const url = request.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const { method } = request;
  let operation;
  let allowed;
  let argument;
  if (COLLECTION_PATH.test(path)) {
    allowed = 'GET, HEAD, POST';
    operation = method === 'POST' ? create : method === 'GET' || method === 'HEAD' ? list : undefined;
    argument = mark === -1 ? '' : url.slice(mark + 1);
  } else {
    const item = ITEM_PATH.exec(path);
    if (!item) {
      return fail(request, response, 404, `Cannot ${method} ${url}`);
    }
    allowed = 'GET, HEAD';
    operation = method === 'GET' || method === 'HEAD' ? read : undefined;
    argument = item[1];
    if (operation && !decodable(argument)) {
      // As the router refuses it: before the token is looked at.
      return fail(request, response, 400, `Failed to decode param '${argument}'`);
    }
  }
  if (!operation) {
    return fail(request, response, 405, `Method ${method} is not allowed on ${path}; allowed: ${allowed}`, [
      'Allow',
      allowed,
    ]);
  }
  // The body's size, media type and syntax are checked as it is read, before the token.
  readBody(request, response, (body) => {
    const refusal = authenticate(request.headers.authorization);
    if (refusal) {
      return fail(request, response, 401, refusal.message, [
        'WWW-Authenticate',
        refusal.challenge,
        ...(refusal === MISSING_TOKEN ? [] : countFailure(request)),
      ]);
    }
    countRequest(request);
    operation(request, response, argument, body).catch((error) => {
      if (response.headersSent) {
        response.destroy();
      } else {
        failStore(request, response, error);
      }
    });
  });
}

// ---------------------------------------------------------------------------
// Request bodies

/** Calls `next` with the parsed JSON or NO_BODY, or answers the refusal itself. */
function readBody(request, response, next) {
  const { headers } = request;
  const declared = headers['content-length'];
  if (headers['transfer-encoding'] === undefined && Number.isNaN(Number(declared))) {
    return next(NO_BODY);
  }
  const contentType = headers['content-type'];
  if (contentType !== JSON_MEDIA_TYPE) {
    const { type, charset } = parseContentType(contentType ?? '');
    if (type !== JSON_MEDIA_TYPE) {
      // Left unread: a create answers 415 before its token is checked, a read ignores it.
      if (declared === '0' || request.method !== 'POST') {
        return next(NO_BODY);
      }
      return fail(request, response, 415, `Content-Type must be ${JSON_MEDIA_TYPE}`);
    }
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return fail(request, response, 415, 'JSON request bodies must be encoded as UTF-8');
    }
  }
  if ((headers['content-encoding']?.toLowerCase() ?? 'identity') !== 'identity') {
    return fail(request, response, 415, 'Compressed request bodies (Content-Encoding) are not supported');
  }
  const tooLarge = () =>
    // The rest of the body is never read: the connection goes with the answer.
    fail(request, response, 413, `Request body is larger than ${BODY_LIMIT} bytes`, ['Connection', 'close']);
  if (declared !== undefined && Number(declared) > BODY_LIMIT) {
    return tooLarge();
  }
  const chunks = [];
  let size = 0;
  let refused = false;
  request.on('data', (chunk) => {
    size += chunk.length;
    if (refused) {
      return;
    }
    if (size > BODY_LIMIT) {
      refused = true;
      tooLarge();
    } else {
      chunks.push(chunk);
    }
  });
  request.on('end', () => {
    if (refused) {
      return;
    }
    const buffer = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    if (!isUtf8(buffer)) {
      return fail(request, response, 400, 'Request body is not valid UTF-8');
    }
    if (buffer.length === 0) {
      return fail(request, response, 400, 'Request body is empty; a JSON object is required');
    }
    let body;
    try {
      body = parseJson(buffer.toString('utf8'));
    } catch (error) {
      return fail(request, response, 400, `Request body is not valid JSON: ${error.message}`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      return fail(request, response, 400, 'Request body must be a JSON object');
    }
    const prototypeKey = Object.keys(body).find((key) => PROTOTYPE_KEYS.has(key));
    if (prototypeKey !== undefined) {
      return fail(request, response, 400, `property ${prototypeKey} is not allowed`);
    }
    next(body);
  });
}

const PROTOTYPE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function decodable(text) {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}

/** The media type (lower case) and charset of a Content-Type header, parameters without a value ignored. */
function parseContentType(header) {
  const [type, ...parameters] = header.split(';');
  let charset;
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    if (equals !== -1 && parameter.slice(0, equals).trim().toLowerCase() === 'charset') {
      charset = parameter
        .slice(equals + 1)
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .toLowerCase();
      break;
    }
  }
  return { type: type.replace(/^[ \t]+|[ \t]+$/g, '').toLowerCase(), charset };
}

/**
 * JSON.parse, keeping every digit of integers: bodies that may hold an integer
 * beyond 2^53 or a number JSON.parse rounds (`1.00000000000000001`) are parsed
 * again with a reviver that reads each number's source text.
 */
function parseJson(text) {
  const value = JSON.parse(text);
  let depth = 0;
  let unsafe = false;
  const pending = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, level] = next;
    if (typeof item === 'number') {
      unsafe ||= Number.isInteger(item) && !Number.isSafeInteger(item);
    } else if (item !== null && typeof item === 'object') {
      depth = Math.max(depth, level);
      if (depth > MAX_JSON_DEPTH) {
        throw new Error(`JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
      for (const child of Object.values(item)) {
        pending.push([child, level + 1]);
      }
    }
  }
  if (!unsafe && !/\d[.eE]/.test(text)) {
    return value;
  }
  return JSON.parse(text, (_key, parsed, context) =>
    typeof parsed === 'number' && context?.source !== undefined ? exactNumber(context.source) : parsed,
  );
}

const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** Marks a literal that is no integer although the double nearest to it is one. */
const INEXACT = Symbol('inexact number');

/** An integer-valued literal as a number while safe, a bigint beyond (up to 40 digits); others as JSON.parse reads them. */
function exactNumber(literal) {
  const match = NUMBER_LITERAL.exec(literal);
  if (!match) {
    return INEXACT;
  }
  const [, sign, integerDigits, fractionDigits = '', exponentText = '0'] = match;
  let digits = (integerDigits + fractionDigits).replace(/^0+/, '');
  if (digits === '') {
    return 0;
  }
  let scale = Math.max(-1000, Math.min(1000, Number(exponentText))) - fractionDigits.length;
  while (scale < 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale++;
  }
  if (scale < 0 || digits.length + scale > 40) {
    const nearest = Number(literal);
    return Number.isInteger(nearest) && scale < 0 ? INEXACT : nearest;
  }
  const integer = BigInt(`${sign}${digits}${'0'.repeat(scale)}`);
  return Number.isSafeInteger(Number(integer)) ? Number(integer) : integer;
}

// ---------------------------------------------------------------------------
// Values

function isInt64(value) {
  return typeof value === 'number'
    ? Number.isSafeInteger(value)
    : typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX;
}

/** Decimal digits, exact, as PostgreSQL takes a bigint (and -0 is 0). */
function int64Digits(value) {
  return typeof value === 'bigint' ? value.toString() : String(Object.is(value, -0) ? 0 : value);
}

/** An int64 written in a path or query string: up to 19 digits and an optional `-`; undefined otherwise. */
function parseInt64(text) {
  if (!/^-?\d{1,19}$/.test(text)) {
    return undefined;
  }
  const value = BigInt(text);
  if (value < INT64_MIN || value > INT64_MAX) {
    return undefined;
  }
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

/** A string PostgreSQL stores as sent, of 1 to 255 code points (and not only white space, if asked). */
function isText(value, notBlank) {
  if (typeof value !== 'string' || value.includes('\u0000') || !value.isWellFormed()) {
    return false;
  }
  let length = 0;
  for (let index = 0; index < value.length; index++) {
    const unit = value.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      index++;
    }
    length++;
  }
  return length >= 1 && length <= 255 && (!notBlank || value.trim().length > 0);
}

// ---------------------------------------------------------------------------
// Authentication: static tokens (or their sha256: digests), compared in constant time

const BEARER_SCHEME = /^Bearer(?: |$)/i;
const BEARER_CREDENTIALS = /^Bearer +([A-Za-z0-9\-._~+/]+=*)$/i;
const CHALLENGE = 'Bearer realm="plant-store"';
const MISSING_TOKEN = {
  message: 'A bearer token is required: send Authorization: Bearer <token>',
  challenge: CHALLENGE,
};
const INVALID_TOKEN = {
  message: 'The bearer token is invalid or expired',
  challenge: `${CHALLENGE}, error="invalid_token"`,
};
const DIGESTS = (process.env.AUTH_TOKENS ?? '')
  .split(',')
  .map((entry) => entry.trim())
  .filter((entry) => entry !== '')
  .map((entry) => {
    const hex = /^sha256:([0-9a-fA-F]{64})$/.exec(entry)?.[1];
    return hex ? Buffer.from(hex, 'hex') : sha256(entry);
  });

/** The refusal for this Authorization header, or undefined when it carries a valid token. */
function authenticate(header) {
  if (header === undefined || !BEARER_SCHEME.test(header)) {
    return MISSING_TOKEN;
  }
  const token = BEARER_CREDENTIALS.exec(header)?.[1];
  if (token === undefined) {
    return INVALID_TOKEN;
  }
  return matchesAny(token, DIGESTS) ? undefined : INVALID_TOKEN;
}

// ---------------------------------------------------------------------------
// POST /plants

async function create(request, response, _query, body) {
  if (body === NO_BODY) {
    return fail(request, response, 400, 'A JSON request body is required');
  }
  const problems = [];
  for (const key of Object.keys(body)) {
    if (key !== 'id' && key !== 'name' && key !== 'tag') {
      problems.push(`property ${key} is not allowed`);
    }
  }
  const { id, name, tag } = body;
  if (!Object.hasOwn(body, 'id')) {
    problems.push('id is required');
  } else if (!isInt64(id)) {
    problems.push(`id ${INT64_RULE}`);
  }
  if (!Object.hasOwn(body, 'name')) {
    problems.push('name is required');
  } else if (!isText(name, true)) {
    problems.push(NAME_RULE);
  }
  if (Object.hasOwn(body, 'tag') && !isText(tag, false)) {
    problems.push(TAG_RULE);
  }
  if (problems.length > 0) {
    return fail(request, response, 400, problems.join('; '));
  }

  const plant = { id: int64Digits(id), name, tag: tag ?? null };
  const stored = await writer.write(plant);
  if (stored !== plant && (stored.name !== plant.name || stored.tag !== plant.tag)) {
    return fail(
      request,
      response,
      409,
      `Plant id ${plant.id} is already taken by a plant with a different name or tag`,
    );
  }
  const answer = stored.tag === null ? { name: stored.name } : { name: stored.name, tag: stored.tag };
  sendJson(request, response, 200, JSON.stringify(answer));
}

/**
 * Natural batching: a create that finds a free slot is sent at once, alone;
 * creates that arrive while every slot is busy wait, and leave together in one
 * statement as soon as a slot frees up. A batch that fails for any reason but
 * the database being unavailable is split, and its plants written one by one.
 */
class PlantWriter {
  queue = [];
  inFlight = 0;

  /** The plant stored under its id: this very object when it was inserted now. */
  write(plant) {
    return new Promise((resolve, reject) => {
      this.queue.push({ plant, resolve, reject, attempts: 0 });
      this.dispatch();
    });
  }

  dispatch() {
    while (this.queue.length > 0 && this.inFlight < WRITE_CONCURRENCY) {
      const batch = this.queue.splice(0, MAX_BATCH_SIZE);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.dispatch();
      });
    }
  }

  async run(batch) {
    // One plant per id goes to the database; the others of that id learn from it.
    const first = new Map();
    const others = [];
    for (const pending of batch) {
      if (first.has(pending.plant.id)) {
        others.push(pending);
      } else {
        first.set(pending.plant.id, pending);
      }
    }
    const stored = new Map();
    try {
      const plants = [...first.values()].map((pending) => pending.plant);
      const columns = [
        plants.map((plant) => plant.id),
        plants.map((plant) => plant.name),
        plants.map((plant) => plant.tag),
      ];
      const { rows } =
        SUBSCRIBERS.length > 0
          ? await query('insertBatchWithEvents', [...columns, SUBSCRIBERS])
          : await query('insertBatch', columns);
      const inserted = new Set(rows.map((row) => row.id));
      const taken = [];
      for (const [id, pending] of first) {
        if (inserted.has(id)) {
          stored.set(id, pending.plant);
          pending.resolve(pending.plant);
        } else {
          taken.push(id);
        }
      }
      if (taken.length > 0) {
        for (const row of (await query('selectStored', [taken])).rows) {
          stored.set(row.id, row);
        }
      }
    } catch (error) {
      if (batch.length > 1 && !isDatabaseUnavailable(error)) {
        await Promise.all(batch.map((pending) => this.run([pending])));
      } else {
        batch.forEach((pending) => pending.reject(error));
      }
      return;
    }
    const unseen = [];
    for (const pending of [...first.values(), ...others]) {
      const row = stored.get(pending.plant.id);
      if (!row) {
        unseen.push(pending);
      } else if (row !== pending.plant) {
        pending.resolve(row);
      }
    }
    // An id found taken whose row was deleted before it could be read: written again, a few times at most.
    for (const pending of unseen) {
      if (++pending.attempts >= MAX_WRITE_ATTEMPTS) {
        pending.reject(new Error(`Plant ${pending.plant.id} was neither inserted nor found`));
      }
    }
    const again = unseen.filter((pending) => pending.attempts < MAX_WRITE_ATTEMPTS);
    if (again.length > 0) {
      this.queue.unshift(...again);
      this.dispatch();
    }
  }
}

const writer = new PlantWriter();

// ---------------------------------------------------------------------------
// GET /plants/{id}

/** The path's id as exact digits, or undefined once the refusal is answered. */
function idParameter(request, response, raw) {
  const id = parseInt64(decodeURIComponent(raw));
  if (id === undefined) {
    fail(request, response, 400, `id ${INT64_RULE}`);
    return undefined;
  }
  return int64Digits(id);
}

async function read(request, response, raw) {
  const id = idParameter(request, response, raw);
  if (id === undefined) {
    return;
  }
  const row = (await query('selectOne', [id])).rows[0];
  if (!row) {
    return fail(request, response, 404, `No plant has the id ${id}`);
  }
  // The ETag: the plant's version, as a strong entity tag.
  sendJson(request, response, 200, plantJson(row), ['ETag', `"${row.version}"`]);
}

// ---------------------------------------------------------------------------
// GET /plants?limit=&after=&tag=: keyset pages

const LIST_PARAMETERS = new Set(['limit', 'after', 'tag']);

async function list(request, response, queryString) {
  // node:querystring, as Express's "simple" query parser: a parameter given twice becomes a list.
  const parameters = parseQueryString(queryString);
  const problems = [];
  for (const key of Object.keys(parameters)) {
    if (!LIST_PARAMETERS.has(key)) {
      problems.push(`query parameter ${key} is not allowed`);
    }
  }
  const { limit: limitText, after: afterText, tag } = parameters;
  const limit = typeof limitText === 'string' ? parseInt64(limitText) : undefined;
  if (limitText !== undefined && !(typeof limit === 'number' && limit >= 1 && limit <= MAX_PAGE_SIZE)) {
    problems.push(LIMIT_RULE);
  }
  const after = typeof afterText === 'string' ? parseInt64(afterText) : undefined;
  if (afterText !== undefined && after === undefined) {
    problems.push(`after ${INT64_RULE}`);
  }
  if (tag !== undefined && !isText(tag, false)) {
    problems.push(TAG_RULE);
  }
  if (problems.length > 0) {
    return fail(request, response, 400, problems.join('; '));
  }

  const size = limit ?? DEFAULT_PAGE_SIZE;
  const afterDigits = after === undefined ? undefined : int64Digits(after);
  const { rows } =
    tag === undefined
      ? afterDigits === undefined
        ? await query('page', [size + 1])
        : await query('pageAfter', [size + 1, afterDigits])
      : afterDigits === undefined
        ? await query('pageTag', [size + 1, tag])
        : await query('pageTagAfter', [size + 1, tag, afterDigits]);

  const count = Math.min(rows.length, size);
  let text = '[';
  for (let index = 0; index < count; index++) {
    text += index === 0 ? plantJson(rows[index]) : `,${plantJson(rows[index])}`;
  }
  text += ']';
  if (rows.length <= size) {
    return sendJson(request, response, 200, text);
  }
  // The next page: the same query, `after` the last id of this one.
  const next = new URLSearchParams();
  if (limit !== undefined) {
    next.set('limit', String(limit));
  }
  next.set('after', rows[count - 1].id);
  if (tag !== undefined) {
    next.set('tag', tag);
  }
  sendJson(request, response, 200, text, ['Link', `</plants?${next.toString()}>; rel="next"`]);
}

// ---------------------------------------------------------------------------
// Database errors that mean "retry later" (503) rather than "this statement is wrong"

const UNAVAILABLE_CODES = new Set([
  '57014', // statement_timeout
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGES =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|not queryable|after calling end on the pool/;

function isDatabaseUnavailable(error) {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const { code, message } = current;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^(08|53|57P)[0-9A-Z]*$/.test(code))) {
      return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) {
      return true;
    }
    current = current.cause ?? current.errors?.[0];
  }
  return false;
}

// ---------------------------------------------------------------------------

// The service's timeouts: slow clients are cut off (408), idle keep-alive connections closed.
const server = createServer(
  { headersTimeout: 10_000, requestTimeout: 30_000, connectionsCheckingInterval: 1_000 },
  (request, response) => {
    try {
      handle(request, response);
    } catch {
      if (!response.headersSent) {
        fail(request, response, 500, 'Internal server error');
      }
    }
  },
);
server.keepAliveTimeout = 5_000;

const close = listenAsTheService(server, {
  port: Number(process.env.PORT ?? 4000),
  host: process.env.HOST ?? '127.0.0.1',
});

process.once('SIGTERM', () => {
  // Requests in flight are answered; then the pool closes, and the process ends.
  close(() => void pool.end());
  server.closeIdleConnections();
});
