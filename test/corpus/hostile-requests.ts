import { TEST_TOKEN } from '../support/environment.js';
import type { RawRequest } from '../support/raw-request.js';

/**
 * Requests a client, a fuzzer or an attacker may send to `POST /plants`, and
 * how each must be answered. A refused request must leave the table as it was;
 * an accepted one must store exactly the `stored` row.
 */
export interface CorpusCase {
  readonly name: string;
  readonly request: RawRequest;
  readonly status: number;
  /** A fragment the Error message must contain (refusals). */
  readonly message?: string;
  /** A fragment of the request the Error message must not echo. */
  readonly unechoed?: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** The row an accepted request stores: id as exact digits, tag null when absent. */
  readonly stored?: { readonly id: string; readonly name: string; readonly tag: string | null };
}

const AUTH = `Bearer ${TEST_TOKEN}`;
const JSON_HEADERS = { Authorization: AUTH, 'Content-Type': 'application/json' };
const ID_RULE = 'id must be an integer from -9223372036854775808 to 9223372036854775807';
const NAME_RULE = 'name must be a string of 1 to 255 characters that is not only white space';
const TAG_RULE = 'tag must be a string of 1 to 255 characters';
const CHALLENGE = 'Bearer realm="plant-store"';
const INVALID_TOKEN = 'Bearer realm="plant-store", error="invalid_token"';
const LIMIT = 16 * 1024;
const MALFORMED = 'Content-Type header is malformed';

/** A POST /plants with a JSON body given as text, so that every byte is as written. */
function post(body: string | Buffer, headers: Record<string, string> = JSON_HEADERS): RawRequest {
  return { method: 'POST', path: '/plants', headers, body };
}

/** A PATCH /plants/1 with a merge patch given as text; `headers` add to or replace the usual ones. */
function patch(body: string, headers: Record<string, string> = {}): RawRequest {
  return {
    method: 'PATCH',
    path: '/plants/1',
    headers: { Authorization: AUTH, 'Content-Type': 'application/merge-patch+json', ...headers },
    body,
  };
}

function accepts(name: string, body: string, stored: CorpusCase['stored']): CorpusCase {
  return acceptsRequest(name, post(body), stored);
}

/** A request other than `post(body)` that is accepted: by default, one of `plant('1')`, which stores this row. */
function acceptsRequest(
  name: string,
  request: RawRequest,
  stored: CorpusCase['stored'] = { id: '1', name: 'Fern', tag: null },
): CorpusCase {
  return { name, request, status: 200, stored };
}

function refuses(
  name: string,
  request: RawRequest,
  status: number,
  message?: string,
  headers?: Record<string, string>,
): CorpusCase {
  return { name, request, status, message, headers };
}

const plant = (id: string, extra = '') => `{"id": ${id}, "name": "Fern"${extra}}`;
/** A POST /plants of `body` (the plant 1 by default), labelled `contentType`. */
const labelled = (contentType: string, body: string | Buffer = plant('1')) =>
  post(body, { Authorization: AUTH, 'Content-Type': contentType });
const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

export const HOSTILE_REQUESTS: readonly CorpusCase[] = [
  // int64 boundaries, kept exact
  accepts('id 2^53-1', plant('9007199254740991'), { id: '9007199254740991', name: 'Fern', tag: null }),
  accepts('id 2^53', plant('9007199254740992'), { id: '9007199254740992', name: 'Fern', tag: null }),
  accepts('id 2^53+1 (JSON.parse would round it)', plant('9007199254740993'), {
    id: '9007199254740993',
    name: 'Fern',
    tag: null,
  }),
  accepts('id 2^63-1', plant('9223372036854775807'), { id: '9223372036854775807', name: 'Fern', tag: null }),
  refuses('id 2^63', post(plant('9223372036854775808')), 400, ID_RULE),
  accepts('id -2^63', plant('-9223372036854775808'), { id: '-9223372036854775808', name: 'Fern', tag: null }),
  refuses('id -2^63-1', post(plant('-9223372036854775809')), 400, ID_RULE),
  refuses('id far beyond int64', post(plant('123456789012345678901234567890')), 400, ID_RULE),
  accepts('id 0', plant('0'), { id: '0', name: 'Fern', tag: null }),
  accepts('id -0 is 0', plant('-0'), { id: '0', name: 'Fern', tag: null }),
  accepts('id negative', plant('-42'), { id: '-42', name: 'Fern', tag: null }),
  accepts('id 1.0 is the integer 1', plant('1.0'), { id: '1', name: 'Fern', tag: null }),
  accepts('id 1e3 is the integer 1000', plant('1e3'), { id: '1000', name: 'Fern', tag: null }),
  accepts('id 9.223372036854775807E18, exactly', plant('9.223372036854775807E18'), {
    id: '9223372036854775807',
    name: 'Fern',
    tag: null,
  }),
  refuses('id 1.5', post(plant('1.5')), 400, ID_RULE),
  refuses('id 1e-1', post(plant('1e-1')), 400, ID_RULE),
  refuses(
    'id 1.00000000000000001 (JSON.parse would make it 1)',
    post(plant('1.00000000000000001')),
    400,
    ID_RULE,
  ),
  refuses('id 1e400', post(plant('1e400')), 400, ID_RULE),
  refuses('id 1e999999999', post(plant('1e999999999')), 400, ID_RULE),
  refuses('id as a string', post(plant('"1"')), 400, ID_RULE),
  refuses('id true', post(plant('true')), 400, ID_RULE),
  refuses('id null', post(plant('null')), 400, ID_RULE),
  refuses('id as a list', post(plant('[1]')), 400, ID_RULE),
  refuses('id as an object', post(plant('{"value": 1}')), 400, ID_RULE),
  refuses('id missing', post('{"name": "Fern"}'), 400, 'id is required'),
  refuses('id NaN (not JSON)', post(plant('NaN')), 400, 'not valid JSON'),
  refuses('id Infinity (not JSON)', post(plant('Infinity')), 400, 'not valid JSON'),
  refuses('id in hexadecimal (not JSON)', post(plant('0x10')), 400, 'not valid JSON'),
  refuses('id with a leading zero (not JSON)', post(plant('007')), 400, 'not valid JSON'),

  // name
  refuses('name missing', post('{"id": 1}'), 400, 'name is required'),
  refuses('name empty', post('{"id": 1, "name": ""}'), 400, NAME_RULE),
  refuses('name only spaces', post('{"id": 1, "name": "   "}'), 400, NAME_RULE),
  refuses('name only tabs and newlines', post('{"id": 1, "name": "\\t\\n\\r"}'), 400, NAME_RULE),
  refuses('name only a no-break space', post('{"id": 1, "name": "\\u00a0"}'), 400, NAME_RULE),
  accepts('name of 255 characters', `{"id": 1, "name": "${'n'.repeat(255)}"}`, {
    id: '1',
    name: 'n'.repeat(255),
    tag: null,
  }),
  refuses('name of 256 characters', post(`{"id": 1, "name": "${'n'.repeat(256)}"}`), 400, NAME_RULE),
  accepts('name of 255 emoji (510 UTF-16 units)', `{"id": 1, "name": "${'🌿'.repeat(255)}"}`, {
    id: '1',
    name: '🌿'.repeat(255),
    tag: null,
  }),
  refuses('name of 256 emoji', post(`{"id": 1, "name": "${'🌿'.repeat(256)}"}`), 400, NAME_RULE),
  accepts('name with combining marks, not normalised', '{"id": 1, "name": "Pile\\u0301a"}', {
    id: '1',
    name: 'Pile\u0301a',
    tag: null,
  }),
  accepts('name with spaces around, not trimmed', '{"id": 1, "name": "  Fern  "}', {
    id: '1',
    name: '  Fern  ',
    tag: null,
  }),
  accepts(
    'name in right-to-left script and a line separator',
    '{"id": 1, "name": "\u05e9\u05e8\u05da\\u2028x"}',
    { id: '1', name: '\u05e9\u05e8\u05da\u2028x', tag: null },
  ),
  refuses('name with U+0000', post('{"id": 1, "name": "Fe\\u0000rn"}'), 400, NAME_RULE),
  refuses('name with an unpaired surrogate', post('{"id": 1, "name": "Fe\\ud800rn"}'), 400, NAME_RULE),
  refuses('name as a number', post('{"id": 1, "name": 42}'), 400, NAME_RULE),
  refuses('name null', post('{"id": 1, "name": null}'), 400, NAME_RULE),
  refuses('name as an object', post('{"id": 1, "name": {"toString": "Fern"}}'), 400, NAME_RULE),
  refuses('name as a list', post('{"id": 1, "name": ["Fern"]}'), 400, NAME_RULE),

  // tag
  accepts('tag kept as sent', '{"id": 1, "name": "Fern", "tag": " Pteridophyta "}', {
    id: '1',
    name: 'Fern',
    tag: ' Pteridophyta ',
  }),
  refuses('tag empty', post('{"id": 1, "name": "Fern", "tag": ""}'), 400, TAG_RULE),
  refuses('tag null', post('{"id": 1, "name": "Fern", "tag": null}'), 400, TAG_RULE),
  refuses(
    'tag of 256 characters',
    post(`{"id": 1, "name": "Fern", "tag": "${'t'.repeat(256)}"}`),
    400,
    TAG_RULE,
  ),
  refuses('tag as a number', post('{"id": 1, "name": "Fern", "tag": 1}'), 400, TAG_RULE),
  refuses('tag with U+0000', post('{"id": 1, "name": "Fern", "tag": "\\u0000"}'), 400, TAG_RULE),

  // unknown properties and the prototype keys
  refuses(
    'an unknown property',
    post(plant('1', ', "color": "green"')),
    400,
    'property color is not allowed',
  ),
  refuses(
    '__proto__',
    post(plant('1', ', "__proto__": {"isAdmin": true}')),
    400,
    'property __proto__ is not allowed',
  ),
  refuses(
    'constructor',
    post(plant('1', ', "constructor": {"prototype": {"isAdmin": true}}')),
    400,
    'property constructor is not allowed',
  ),
  refuses('prototype', post(plant('1', ', "prototype": 1')), 400, 'property prototype is not allowed'),
  refuses(
    '__proto__ with an id beyond 2^53 (the exact parser too)',
    post(plant('9007199254740993', ', "__proto__": {"x": 1}')),
    400,
    'property __proto__ is not allowed',
  ),
  // keys naming a member every object inherits: refused by name, as an unknown property is
  refuses('toString', post(plant('1', ', "toString": "x"')), 400, 'property toString is not allowed'),
  refuses('valueOf', post(plant('1', ', "valueOf": 1')), 400, 'property valueOf is not allowed'),
  refuses(
    'hasOwnProperty',
    post(plant('1', ', "hasOwnProperty": false')),
    400,
    'property hasOwnProperty is not allowed',
  ),
  refuses(
    '__lookupGetter__',
    post(plant('1', ', "__lookupGetter__": "id"')),
    400,
    'property __lookupGetter__ is not allowed',
  ),
  refuses(
    'PATCH with isPrototypeOf in a merge patch',
    patch('{"name": "Moss", "isPrototypeOf": {}}'),
    400,
    'property isPrototypeOf is not allowed',
  ),
  ...['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'].map((key) =>
    refuses(
      `GET /plants?${key}=1`,
      { method: 'GET', path: `/plants?${key}=1`, headers: { Authorization: AUTH } },
      400,
      `query parameter ${key} is not allowed`,
    ),
  ),
  refuses(
    'every broken rule at once',
    post('{"id": "x", "name": "", "tag": null, "extra": 1}'),
    400,
    `property extra is not allowed; ${ID_RULE}; ${NAME_RULE}`,
  ),
  accepts('duplicate keys: the last wins, as in JSON.parse', '{"id": 1, "id": 2, "name": "Fern"}', {
    id: '2',
    name: 'Fern',
    tag: null,
  }),

  // the body's shape and syntax
  refuses('a list', post('[]'), 400, 'must be a JSON object'),
  refuses('a list holding a plant', post('[{"id": 1, "name": "Fern"}]'), 400, 'must be a JSON object'),
  refuses('a string', post('"Fern"'), 400, 'must be a JSON object'),
  refuses('a number', post('42'), 400, 'must be a JSON object'),
  refuses('null', post('null'), 400, 'must be a JSON object'),
  refuses('true', post('true'), 400, 'must be a JSON object'),
  refuses('an empty body', post(''), 400, 'Request body is empty'),
  refuses(
    'no body and no Content-Type',
    { method: 'POST', path: '/plants', headers: { Authorization: AUTH } },
    400,
    'A JSON request body is required',
  ),
  refuses(
    'only white space',
    post('   '),
    400,
    'not valid JSON: unexpected end of the body at line 1, column 4',
  ),
  refuses(
    'trailing garbage',
    post(`${plant('1')} x`),
    400,
    'not valid JSON: unexpected character after the JSON value at line 1, column 27',
  ),
  refuses('two objects', post(`${plant('1')}${plant('2')}`), 400, 'not valid JSON'),
  refuses(
    'truncated',
    post('{"id": 1, "name": "Fern"'),
    400,
    'not valid JSON: unexpected end of the body at line 1, column 25',
  ),
  {
    ...refuses(
      'a syntax error, its place named and none of the body quoted',
      post('{\n  "id": 1,\n  "name": "Fern",\n  "secret": hunter2\n}'),
      400,
      'not valid JSON: unexpected character at line 4, column 13',
    ),
    unechoed: 'hunter2',
  },
  refuses('single quotes', post("{'id': 1, 'name': 'Fern'}"), 400, 'not valid JSON'),
  refuses('a comment', post('{"id": 1 /* one */, "name": "Fern"}'), 400, 'not valid JSON'),
  refuses('a trailing comma', post('{"id": 1, "name": "Fern",}'), 400, 'not valid JSON'),
  refuses('a byte order mark', post(`\ufeff${plant('1')}`), 400, 'not valid JSON'),
  refuses(
    'invalid UTF-8',
    post(Buffer.concat([Buffer.from('{"id": 1, "name": "'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')])),
    400,
    'not valid UTF-8',
  ),
  refuses(
    'overlong UTF-8 for "/"',
    post(Buffer.concat([Buffer.from('{"id": 1, "name": "a'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')])),
    400,
    'not valid UTF-8',
  ),
  refuses(
    'UTF-8 encoded surrogate',
    post(
      Buffer.concat([Buffer.from('{"id": 1, "name": "'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]),
    ),
    400,
    'not valid UTF-8',
  ),
  refuses(
    'JSON nested 5000 levels deep',
    post(`{"id": 1, "name": "Fern", "x": ${nested(5000)}}`),
    400,
    'nested deeper than 32 levels',
  ),
  refuses(
    'deep nesting beside an id beyond 2^53',
    post(`{"id": 9007199254740993, "name": "Fern", "x": ${nested(8000)}}`),
    400,
    'nested deeper than 32 levels',
  ),
  refuses(
    'deep nesting of objects',
    post(`${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`),
    400,
    'nested deeper than 32 levels',
  ),
  accepts('a body of exactly 16 KiB', `${plant('1')}${' '.repeat(LIMIT - plant('1').length)}`, {
    id: '1',
    name: 'Fern',
    tag: null,
  }),
  refuses(
    'a body of 16 KiB and one byte',
    post(`${plant('1')}${' '.repeat(LIMIT + 1 - plant('1').length)}`),
    413,
    'larger than 16384 bytes',
    { connection: 'close' },
  ),
  refuses(
    'a body of 1 MiB',
    post(`{"id": 1, "name": "${'x'.repeat(1024 * 1024)}"}`),
    413,
    'larger than 16384 bytes',
  ),
  refuses(
    'a Content-Length of 100 MB, body never sent',
    {
      method: 'POST',
      path: '/plants',
      headers: { ...JSON_HEADERS, 'Content-Length': String(100 * 1024 * 1024) },
      body: '',
    },
    413,
    'larger than 16384 bytes',
  ),

  // media types
  accepts('application/json; charset=utf-8', plant('1'), { id: '1', name: 'Fern', tag: null }),
  acceptsRequest(
    'APPLICATION/JSON in capitals, with charset=UTF-8',
    labelled('APPLICATION/JSON; Charset=UTF-8'),
  ),
  refuses('text/plain', labelled('text/plain'), 415, 'Content-Type must be application/json'),
  refuses(
    'no Content-Type',
    post(plant('1'), { Authorization: AUTH }),
    415,
    'Content-Type must be application/json',
  ),
  refuses('a form', labelled('application/x-www-form-urlencoded', 'id=1&name=Fern'), 415),
  refuses('application/merge-patch+json', labelled('application/merge-patch+json'), 415),
  refuses('application/jsonp', labelled('application/jsonp'), 415),
  refuses('charset=latin1', labelled('application/json; charset=latin1'), 415, 'UTF-8'),
  refuses(
    'UTF-16 with its charset',
    labelled('application/json; charset=utf-16le', Buffer.from(plant('1'), 'utf16le')),
    415,
    'UTF-8',
  ),
  refuses(
    'gzip-encoded',
    post(plant('1'), { ...JSON_HEADERS, 'Content-Encoding': 'gzip' }),
    415,
    'Content-Encoding',
  ),
  refuses('a malformed Content-Type', labelled('application/json/plants'), 415),
  refuses('a Content-Type parameter without a value', labelled('application/json; charset'), 415, MALFORMED),
  refuses('a Content-Type parameter that is only a name', labelled('application/json; foo'), 415, MALFORMED),
  refuses('empty Content-Type parameters', labelled('application/json;;;'), 415, MALFORMED),
  refuses(
    'an unterminated quote in Content-Type',
    labelled('application/json; charset="utf-8'),
    415,
    MALFORMED,
  ),
  refuses('charset given twice', labelled('application/json; charset=utf-8; charset=latin1'), 415, MALFORMED),
  acceptsRequest('a quoted charset', labelled('application/json; charset="utf-8"')),

  // Authorization
  refuses(
    'no Authorization',
    post(plant('1'), { 'Content-Type': 'application/json' }),
    401,
    'bearer token is required',
    { 'www-authenticate': CHALLENGE },
  ),
  refuses(
    'an empty Authorization',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: '' }),
    401,
    'bearer token is required',
    { 'www-authenticate': CHALLENGE },
  ),
  refuses(
    'Basic credentials',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: 'Basic dXNlcjpwYXNzd29yZA==' }),
    401,
    'bearer token is required',
    { 'www-authenticate': CHALLENGE },
  ),
  refuses(
    'another scheme',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: `Token ${TEST_TOKEN}` }),
    401,
    'bearer token is required',
    { 'www-authenticate': CHALLENGE },
  ),
  acceptsRequest(
    'lower-case bearer',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: `bearer ${TEST_TOKEN}` }),
  ),
  acceptsRequest(
    'two spaces after Bearer (RFC 7235: 1*SP)',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: `Bearer  ${TEST_TOKEN}` }),
  ),
  refuses(
    'a wrong token',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: 'Bearer wrong-token-0123456789' }),
    401,
    'invalid or expired',
    { 'www-authenticate': INVALID_TOKEN },
  ),
  refuses(
    'Bearer with no token',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: 'Bearer' }),
    401,
    'invalid or expired',
    { 'www-authenticate': INVALID_TOKEN },
  ),
  refuses(
    'the token with something after it',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: `${AUTH} extra` }),
    401,
    'invalid or expired',
    { 'www-authenticate': INVALID_TOKEN },
  ),
  refuses(
    'the token with a character appended',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: `${AUTH}x` }),
    401,
    'invalid or expired',
    { 'www-authenticate': INVALID_TOKEN },
  ),
  refuses(
    'a token with characters no bearer token has',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: 'Bearer tok@n!' }),
    401,
    'invalid or expired',
    { 'www-authenticate': INVALID_TOKEN },
  ),
  refuses(
    'a very long token',
    post(plant('1'), { 'Content-Type': 'application/json', Authorization: `Bearer ${'a'.repeat(8000)}` }),
    401,
    'invalid or expired',
    { 'www-authenticate': INVALID_TOKEN },
  ),

  // methods and paths
  refuses(
    'PUT /plants',
    { method: 'PUT', path: '/plants', headers: JSON_HEADERS, body: plant('1') },
    405,
    'Method PUT is not allowed on /plants',
  ),
  refuses(
    'PATCH /plants',
    { method: 'PATCH', path: '/plants', headers: JSON_HEADERS, body: plant('1') },
    405,
  ),
  // PATCH /plants/{id}: the same body rules for a merge patch, before any plant is looked up
  refuses(
    'PATCH with __proto__ in a merge patch',
    patch('{"name": "Moss", "__proto__": {"isAdmin": true}}'),
    400,
    'property __proto__ is not allowed',
  ),
  refuses('PATCH with a merge patch nested too deep', patch(`{"name": ${nested(5000)}}`), 400),
  refuses('PATCH with a merge patch over 16 KiB', patch(`{"name": "${'x'.repeat(LIMIT)}"}`), 413),
  refuses(
    'PATCH with a merge patch in Latin-1',
    patch('{"name": "Moss"}', { 'Content-Type': 'application/merge-patch+json; charset=latin1' }),
    415,
    'JSON request bodies must be encoded as UTF-8',
  ),
  refuses(
    'PATCH with a merge patch whose Content-Type has a parameter without a value',
    patch('{"name": "Moss"}', { 'Content-Type': 'application/merge-patch+json; charset' }),
    415,
    MALFORMED,
  ),
  refuses(
    'PATCH as a form',
    patch('name=Moss', { 'Content-Type': 'application/x-www-form-urlencoded' }),
    415,
    'Content-Type must be application/merge-patch+json or application/json',
  ),
  refuses(
    'PATCH with a malformed If-Match',
    patch('{"name": "Moss"}', { 'If-Match': '1' }),
    400,
    'If-Match must be * or a list of entity tags',
  ),
  refuses('PATCH with "name": null', patch('{"name": null}'), 400, NAME_RULE),
  refuses('PATCH of no plant', patch('{"name": "Moss"}', { 'If-Match': '*' }), 404, 'No plant has the id 1'),
  refuses('POST /plant', { method: 'POST', path: '/plant', headers: JSON_HEADERS, body: plant('1') }, 404),
  refuses(
    'POST /plants/../plants',
    { method: 'POST', path: '/plants/../plants', headers: JSON_HEADERS, body: plant('1') },
    404,
  ),
  refuses('POST /', { method: 'POST', path: '/', headers: JSON_HEADERS, body: plant('1') }, 404),
  refuses('GET /nowhere', { method: 'GET', path: '/nowhere', headers: { Authorization: AUTH } }, 404),
  refuses(
    'a path with %00',
    { method: 'POST', path: '/plants%00', headers: JSON_HEADERS, body: plant('1') },
    404,
  ),
  acceptsRequest('POST /plants?unknown=1 (query ignored)', {
    method: 'POST',
    path: '/plants?unknown=1',
    headers: JSON_HEADERS,
    body: plant('1'),
  }),
];
