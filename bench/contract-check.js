/**
 * The contract check of `npm run bench`: requests that the floor and the
 * service must answer alike (status, body and headers, the date and
 * generated request ids aside), so that the two are compared doing the same
 * work. On the routes the floor has: creates, replays and conflicts, the
 * body's rules, the token, the routes, reads of preloaded and exact int64
 * ids and their ETags, pages and their Link.
 *
 * Plants it creates have ids below 1 or beyond 2^53 (outside the preloaded
 * 1..N); it changes none of the preloaded ones.
 */
import { request as httpRequest } from 'node:http';

const NESTED = `{"id": -20, "name": "Deep", "x": ${'['.repeat(40)}1${']'.repeat(40)}}`;
const INT64_MAX = '9223372036854775807';

/** The requests, in order; `preload` is the number of preloaded plants (ids 1..preload, every 4th tagged fern). */
export function contractProbes(token, preload) {
  const auth = { Authorization: `Bearer ${token}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const post = (name, body, headers = json, path = '/plants') => ({
    name,
    method: 'POST',
    path,
    headers,
    body,
  });
  const get = (name, path, headers = auth) => ({ name, method: 'GET', path, headers });
  const send = (name, method, path, headers = json, body = undefined) => ({
    name,
    method,
    path,
    headers,
    body,
  });
  const last = preload;
  return [
    // Creates, replays and conflicts
    post('a new plant', '{"id": -11, "name": "Fern"}'),
    post('the same plant again (a replay)', '{"id": -11, "name": "Fern"}'),
    post('another plant under a taken id', '{"id": -11, "name": "Moss"}'),
    post('a plant with a tag', '{"id": -12, "name": "Monstera", "tag": "aroid"}'),
    post('a preloaded id with another name', '{"id": 1, "name": "Fern"}'),
    post('id 2^63-1', `{"id": ${INT64_MAX}, "name": "Largest"}`),
    post('id -2^63', '{"id": -9223372036854775808, "name": "Smallest"}'),
    post('id 2^53+1', '{"id": 9007199254740993, "name": "Past 2^53", "tag": "big"}'),
    post('id -1.3e1 is -13', '{"id": -1.3e1, "name": "Exponent"}'),
    post('id -0 is 0', '{"id": -0, "name": "Zero"}'),
    post('duplicate keys: the last wins', '{"id": 5, "id": -21, "name": "Twice"}'),
    post('a request id of the client', '{"id": -22, "name": "Named"}', {
      ...json,
      'X-Request-Id': 'probe-1',
    }),
    // The body's rules
    post('id 2^63', '{"id": 9223372036854775808, "name": "Fern"}'),
    post('id 1.5', '{"id": 1.5, "name": "Fern"}'),
    post('id 1.00000000000000001', '{"id": 1.00000000000000001, "name": "Fern"}'),
    post('id as a string', '{"id": "1", "name": "Fern"}'),
    post('id missing', '{"name": "Fern"}'),
    post('name missing', '{"id": -23}'),
    post('name blank', '{"id": -23, "name": " \\t "}'),
    post('name of 256 characters', `{"id": -23, "name": "${'n'.repeat(256)}"}`),
    post('name of 255 emoji', `{"id": -24, "name": "${'🌿'.repeat(255)}"}`),
    post('name with U+0000', '{"id": -23, "name": "Fe\\u0000rn"}'),
    post('name with a lone surrogate', '{"id": -23, "name": "Fe\\ud800rn"}'),
    post('tag null', '{"id": -23, "name": "Fern", "tag": null}'),
    post('tag empty', '{"id": -23, "name": "Fern", "tag": ""}'),
    post('an unknown property', '{"id": -23, "name": "Fern", "colour": "green"}'),
    post('__proto__', '{"id": -23, "name": "Fern", "__proto__": {"admin": true}}'),
    post('every rule broken at once', '{"id": "x", "name": "", "tag": null, "extra": 1}'),
    post('a list', '[{"id": -23, "name": "Fern"}]'),
    post('null', 'null'),
    post('an empty body', ''),
    send('no body and no Content-Type', 'POST', '/plants', auth),
    post('invalid JSON', '{"id": -23, "name": "Fern"'),
    post('trailing garbage', '{"id": -23, "name": "Fern"} x'),
    post('JSON nested 41 levels deep', NESTED),
    post(
      'invalid UTF-8',
      Buffer.concat([Buffer.from('{"id": -23, "name": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
    ),
    post('a body of 16 KiB and one byte', `{"id": -23, "name": "Fern"}${' '.repeat(16 * 1024 - 26)}`),
    post('a body of exactly 16 KiB', `{"id": -25, "name": "Fern"}${' '.repeat(16 * 1024 - 27)}`),
    // Media types
    post('text/plain', '{"id": -23, "name": "Fern"}', { ...auth, 'Content-Type': 'text/plain' }),
    post('no Content-Type', '{"id": -23, "name": "Fern"}', auth),
    post('charset=latin1', '{"id": -23, "name": "Fern"}', {
      ...auth,
      'Content-Type': 'application/json; charset=latin1',
    }),
    post('gzip', '{"id": -23, "name": "Fern"}', { ...json, 'Content-Encoding': 'gzip' }),
    post('APPLICATION/JSON; Charset=UTF-8', '{"id": -14, "name": "Fern"}', {
      ...auth,
      'Content-Type': 'APPLICATION/JSON; Charset=UTF-8',
    }),
    post('a parameter without a value', '{"id": -15, "name": "Fern"}', {
      ...auth,
      'Content-Type': 'application/json; charset',
    }),
    post('a merge patch', '{"id": -32, "name": "Fern"}', {
      ...auth,
      'Content-Type': 'application/merge-patch+json',
    }),
    // The token
    post('no Authorization', '{"id": -23, "name": "Fern"}', { 'Content-Type': 'application/json' }),
    post('Basic credentials', '{"id": -23, "name": "Fern"}', {
      'Content-Type': 'application/json',
      Authorization: 'Basic dXNlcjpwYXNzd29yZA==',
    }),
    post('a wrong token', '{"id": -23, "name": "Fern"}', {
      'Content-Type': 'application/json',
      Authorization: 'Bearer wrong-token-0123456789',
    }),
    post('Bearer and no token', '{"id": -23, "name": "Fern"}', {
      'Content-Type': 'application/json',
      Authorization: 'Bearer',
    }),
    post('lower-case bearer', '{"id": -16, "name": "Fern"}', {
      'Content-Type': 'application/json',
      Authorization: `bearer ${token}`,
    }),
    post('text/plain and no token', '{"id": -23, "name": "Fern"}', { 'Content-Type': 'text/plain' }),
    // Routes
    send('PUT /plants', 'PUT', '/plants', json, '{"id": -23, "name": "Fern"}'),
    send('DELETE /plants', 'DELETE', '/plants', auth),
    post('POST /plant', '{"id": -23, "name": "Fern"}', json, '/plant'),
    get('GET /nowhere?x=1', '/nowhere?x=1'),
    post('POST /plants/ (a trailing slash)', '{"id": -18, "name": "Fern"}', json, '/plants/'),
    post(
      'POST /plants?unknown=1 (the query ignored)',
      '{"id": -19, "name": "Fern"}',
      json,
      '/plants?unknown=1',
    ),
    post('invalid JSON to a path that does not exist (docs/api.md: 404 first)', '{"id": ', json, '/nowhere'),
    // GET /plants/{id}
    get('a preloaded plant', '/plants/1'),
    get('a preloaded plant with a tag', `/plants/${Math.max(4, last - (last % 4) - 4)}`),
    get('the last preloaded plant', `/plants/${last}`),
    get('no such plant', `/plants/${last + 1}`),
    get('id 2^63-1, every digit', `/plants/${INT64_MAX}`),
    get('id 2^53+1, every digit', '/plants/9007199254740993'),
    get('id -0', '/plants/-0'),
    get('id 007', '/plants/007'),
    get('id %35', '/plants/%35'),
    get('a trailing slash', '/plants/1/'),
    get('id abc', '/plants/abc'),
    get('id 1.5', '/plants/1.5'),
    get('id 2^63', '/plants/9223372036854775808'),
    get('id %FF', '/plants/%FF'),
    get('no token', '/plants/1', {}),
    get('a wrong token', '/plants/1', { Authorization: 'Bearer wrong-token-0123456789' }),
    send('HEAD /plants/1', 'HEAD', '/plants/1', auth),
    // GET /plants
    get('the first page', '/plants'),
    get('a page after 100', '/plants?limit=20&after=100'),
    get('the last page', `/plants?limit=5&after=${last - 3}`),
    get('a page of a tag', '/plants?tag=fern&limit=3'),
    get('the next page of a tag', '/plants?limit=2&after=4&tag=fern'),
    get('a page from a negative id', '/plants?limit=3&after=-100&tag=aroid'),
    get('a page past 2^53', '/plants?after=9007199254740992&limit=1'),
    get('limit 01', '/plants?limit=01&after=10'),
    get('a tag nobody has', '/plants?tag=a%20b'),
    get('limit 0', '/plants?limit=0'),
    get('limit 101', '/plants?limit=101'),
    get('limit abc', '/plants?limit=abc'),
    get('limit twice', '/plants?limit=1&limit=2'),
    get('after x', '/plants?after=x'),
    get('after 2^63', '/plants?after=9223372036854775808'),
    get('tag empty', '/plants?tag='),
    get('unknown parameters', '/plants?offset=10&limit=0'),
  ];
}

/** Each probe's answer from `base`, one after another, each on a connection of its own. */
export async function answersOf(base, probes) {
  const { hostname, port } = new URL(base);
  const answers = [];
  for (const probe of probes) {
    answers.push(await ask(hostname, port, probe));
  }
  return answers;
}

function ask(hostname, port, { method, path, headers, body }) {
  return new Promise((resolve) => {
    let answered = false;
    const request = httpRequest({ hostname, port, method, path, headers, agent: false }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => chunks.push(chunk));
      response.on('end', () => {
        answered = true;
        resolve({
          status: response.statusCode,
          headers: response.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    // A server that answers (413) and closes before reading the whole body may reset the write.
    request.on('error', (error) => answered || resolve({ error: error.code ?? error.message }));
    request.end(body);
  });
}

const IGNORED_HEADERS = new Set(['date', 'x-request-id']);
/** What is left of the rate limit depends on the requests each server has had before. */
const comparable = (name, value) =>
  name === 'ratelimit' ? String(value).replace(/;r=\d+;t=\d+$/, '') : String(value);

/** Where the answers differ: one line per probe and difference. */
export function differencesOf(probes, floor, service) {
  const differences = [];
  probes.forEach((probe, index) => {
    const [a, b] = [floor[index], service[index]];
    const differ = (what, floorValue, serviceValue) =>
      differences.push({
        probe: `${probe.method} ${probe.path}: ${probe.name}`,
        what,
        floor: floorValue,
        service: serviceValue,
      });
    if (a.error || b.error) {
      if (a.error !== b.error) {
        differ('error', a.error ?? null, b.error ?? null);
      }
      return;
    }
    if (a.status !== b.status) {
      differ('status', a.status, b.status);
    }
    if (a.body !== b.body) {
      differ('body', a.body, b.body);
    }
    const names = new Set([...Object.keys(a.headers), ...Object.keys(b.headers)]);
    for (const name of names) {
      if (
        !IGNORED_HEADERS.has(name) &&
        comparable(name, a.headers[name]) !== comparable(name, b.headers[name])
      ) {
        differ(`header ${name}`, a.headers[name] ?? null, b.headers[name] ?? null);
      }
    }
    // A request id: always one, and the client's when it sent an acceptable one.
    const sent = probe.headers['X-Request-Id'];
    for (const [target, answer] of [
      ['floor', a],
      ['service', b],
    ]) {
      const id = answer.headers['x-request-id'];
      if (!id || (sent !== undefined && id !== sent)) {
        differences.push({
          probe: `${probe.method} ${probe.path}: ${probe.name}`,
          what: `header x-request-id (${target})`,
          floor: target === 'floor' ? (id ?? null) : '-',
          service: target === 'service' ? (id ?? null) : '-',
        });
      }
    }
  });
  return differences;
}
