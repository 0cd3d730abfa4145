/** Deeper JSON is refused before any recursive code sees it. */
export const MAX_JSON_DEPTH = 32;

/** Integers need no more digits than int64's extremes have; longer ones are read as doubles. */
const MAX_INTEGER_DIGITS = 40;

export class JsonSyntaxError extends Error {
  override readonly name = 'JsonSyntaxError';
}

/**
 * `JSON.parse` makes these plain own properties, but code that copies or merges objects (a deep
 * merge, class-transformer) may follow them into a prototype: no body holding one goes any further.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export class JsonKeyError extends Error {
  override readonly name = 'JsonKeyError';
}

/** A non-integer whose nearest double is one (`1.00000000000000001`): no integer or number rule takes it. */
export class InexactNumber {
  constructor(readonly literal: string) {}

  toString(): string {
    return this.literal;
  }
}

declare global {
  interface JSON {
    /** A JSON text that `JSON.stringify` writes as it is (ES2026; no TypeScript lib declares it yet). */
    rawJSON(text: string): unknown;
  }
}

interface ReviverContext {
  readonly source?: string;
}

/**
 * Parses a body without losing a digit: `JSON.parse` rounds integers beyond 2^53 and fractions it
 * cannot represent, so a body where that may happen is parsed again with a reviver that reads each
 * number's source text.
 */
export function parseJson(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new JsonSyntaxError(describeSyntaxError(text));
  }
  const { depth, hasUnsafeInteger, hasPrototypeKey } = inspect(value);
  if (depth > MAX_JSON_DEPTH) {
    throw new JsonSyntaxError(`JSON is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (hasPrototypeKey) {
    throw new JsonKeyError(`property ${prototypeKeyPath(value, '') ?? '__proto__'} is not allowed`);
  }
  if (!hasUnsafeInteger && !MAY_LOSE_PRECISION.test(text)) {
    return value;
  }
  // The same parser, so duplicate keys and `__proto__` are treated the same way on both paths.
  return JSON.parse(text, exactNumber);
}

/**
 * What is wrong and where, found again by a scanner of JSON's grammar (RFC 8259): `JSON.parse`'s own
 * message quotes the text around the fault, and nothing of a body goes back in an answer or a log.
 */
export function describeSyntaxError(text: string): string {
  const fault = findSyntaxFault(text);
  if (fault === undefined) {
    return 'its syntax is broken';
  }
  const before = text.slice(0, fault.at);
  const lineStart = before.lastIndexOf('\n') + 1;
  const line = before.split('\n').length;
  // In characters, as an editor counts them: a surrogate pair is one.
  const column = [...before.slice(lineStart)].length + 1;
  return `${fault.problem} at line ${line}, column ${column}`;
}

interface SyntaxFault {
  readonly at: number;
  readonly problem: string;
}

const WHITE_SPACE: ReadonlySet<string | undefined> = new Set([' ', '\t', '\n', '\r']);
const ESCAPED: ReadonlySet<string | undefined> = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX_DIGITS = /^[0-9a-fA-F]{4}$/;

/** Iterative, as `inspect` is: no text can exhaust the stack. */
function findSyntaxFault(text: string): SyntaxFault | undefined {
  let at = 0;
  const open: Array<'}' | ']'> = [];
  const skipWhiteSpace = () => {
    while (WHITE_SPACE.has(text[at])) at++;
  };
  const fault = (problem: string, where = at): SyntaxFault => ({
    at: Math.min(where, text.length),
    problem: where < text.length ? problem : 'unexpected end of the body',
  });
  const string = (): SyntaxFault | undefined => {
    for (at++; at < text.length; at++) {
      const character = text[at];
      if (character === '"') {
        at++;
        return undefined;
      }
      if (character === '\\') {
        const escaped = text[at + 1];
        if (escaped === 'u' && HEX_DIGITS.test(text.slice(at + 2, at + 6))) {
          at += 5;
        } else if (escaped !== 'u' && ESCAPED.has(escaped)) {
          at += 1;
        } else {
          return fault('invalid escape in a string', at + 1);
        }
      } else if (character < ' ') {
        return fault('control character in a string');
      }
    }
    return fault('unterminated string');
  };
  const propertyName = (): SyntaxFault | undefined => {
    skipWhiteSpace();
    if (text[at] !== '"') {
      return fault('expected a property name');
    }
    const broken = string();
    if (broken) {
      return broken;
    }
    skipWhiteSpace();
    if (text[at] !== ':') {
      return fault("expected ':' after a property name");
    }
    at++;
    return undefined;
  };
  const scalar = (): SyntaxFault | undefined => {
    const first = text[at];
    if (first === '"') {
      return string();
    }
    if (first === '-' || (first !== undefined && first >= '0' && first <= '9')) {
      NUMBER.lastIndex = at;
      if (!NUMBER.test(text)) {
        return fault('invalid number');
      }
      at = NUMBER.lastIndex;
      return undefined;
    }
    for (const literal of ['true', 'false', 'null']) {
      if (text.startsWith(literal, at)) {
        at += literal.length;
        return undefined;
      }
    }
    return fault('unexpected character');
  };

  for (;;) {
    // A value is due at `at`.
    skipWhiteSpace();
    const first = text[at];
    if (first === '{' || first === '[') {
      const close = first === '{' ? '}' : ']';
      at++;
      skipWhiteSpace();
      if (text[at] === close) {
        at++;
      } else {
        open.push(close);
        const broken = close === '}' ? propertyName() : undefined;
        if (broken) {
          return broken;
        }
        continue;
      }
    } else {
      const broken = scalar();
      if (broken) {
        return broken;
      }
    }
    // A value has ended: close what it ends, then a separator or the end of the text is due.
    for (;;) {
      skipWhiteSpace();
      const close = open.at(-1);
      if (close === undefined) {
        return at < text.length ? fault('unexpected character after the JSON value') : undefined;
      }
      if (text[at] === close) {
        at++;
        open.pop();
        continue;
      }
      if (text[at] !== ',') {
        return fault(`expected ',' or '${close}'`);
      }
      at++;
      const broken = close === '}' ? propertyName() : undefined;
      if (broken) {
        return broken;
      }
      break;
    }
  }
}

function exactNumber(_key: string, value: unknown, context?: ReviverContext): unknown {
  return typeof value === 'number' && context?.source !== undefined
    ? parseExactNumber(context.source)
    : value;
}

/** A digit followed by a fraction or an exponent: JSON.parse may have rounded it. */
const MAY_LOSE_PRECISION = /\d[.eE]/;

interface Inspection {
  depth: number;
  hasUnsafeInteger: boolean;
  hasPrototypeKey: boolean;
}

function inspect(root: unknown): Inspection {
  const found: Inspection = { depth: 0, hasUnsafeInteger: false, hasPrototypeKey: false };
  // Iterative, so that no body can exhaust the stack.
  const pending: Array<[unknown, number]> = [[root, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, level] = next;
    if (typeof value === 'number') {
      found.hasUnsafeInteger ||= Number.isInteger(value) && !Number.isSafeInteger(value);
    } else if (Array.isArray(value)) {
      found.depth = Math.max(found.depth, level);
      if (found.depth > MAX_JSON_DEPTH) {
        break;
      }
      for (const item of value as unknown[]) {
        pending.push([item, level + 1]);
      }
    } else if (value !== null && typeof value === 'object') {
      found.depth = Math.max(found.depth, level);
      if (found.depth > MAX_JSON_DEPTH) {
        break;
      }
      for (const key of Object.keys(value)) {
        found.hasPrototypeKey ||= PROTOTYPE_KEYS.has(key);
        pending.push([(value as Record<string, unknown>)[key], level + 1]);
      }
    }
  }
  return found;
}

/** For the message; recursive, as it runs only on values no deeper than `MAX_JSON_DEPTH`. */
function prototypeKeyPath(value: unknown, parent: string): string | undefined {
  if (Array.isArray(value)) {
    for (const [index, item] of (value as unknown[]).entries()) {
      const path = prototypeKeyPath(item, `${parent}[${index}]`);
      if (path !== undefined) {
        return path;
      }
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const path = `${parent === '' ? '' : `${parent}.`}${keyForMessage(key)}`;
      if (PROTOTYPE_KEYS.has(key)) {
        return path;
      }
      const below = prototypeKeyPath(child, path);
      if (below !== undefined) {
        return below;
      }
    }
  }
  return undefined;
}

const MAX_KEY_LENGTH_IN_MESSAGE = 32;

/** Cut short, so that a message stays short whatever the body holds. */
export function keyForMessage(key: string): string {
  if (key.length <= MAX_KEY_LENGTH_IN_MESSAGE) {
    return key;
  }
  const cut = key.slice(0, MAX_KEY_LENGTH_IN_MESSAGE);
  // Never half of a surrogate pair.
  return `${/[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut}…`;
}

const NUMBER_LITERAL = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * JSON Schema's integers: an integer-valued literal (`7`, `7.0`, `7e0`) is a `number` while safe and a
 * `bigint` beyond; any other is `JSON.parse`'s double, or an `InexactNumber` when that is an integer.
 */
export function parseExactNumber(literal: string): number | bigint | InexactNumber {
  const match = NUMBER_LITERAL.exec(literal);
  if (!match) {
    return new InexactNumber(literal);
  }
  const [, sign, integerDigits, fractionDigits = '', exponentText = '0'] = match;
  let digits = (integerDigits + fractionDigits).replace(/^0+/, '');
  if (digits === '') {
    return 0;
  }
  // Clamp: beyond these bounds the value is far outside any integer we accept.
  const exponent = Math.max(-1000, Math.min(1000, Number(exponentText)));
  let scale = exponent - fractionDigits.length;
  while (scale < 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale++;
  }
  if (scale < 0 || digits.length + scale > MAX_INTEGER_DIGITS) {
    const nearest = Number(literal);
    return Number.isInteger(nearest) && scale < 0 ? new InexactNumber(literal) : nearest;
  }
  const integer = BigInt(`${sign}${digits}${'0'.repeat(scale)}`);
  const asNumber = Number(integer);
  return Number.isSafeInteger(asNumber) ? asNumber : integer;
}

/** Writes a `bigint` with all its digits, where `JSON.stringify` throws; only such a value pays for the replacer. */
export function stringifyJson(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (error) {
    if (error instanceof TypeError && /BigInt/i.test(error.message)) {
      return JSON.stringify(value, bigintAsNumber);
    }
    throw error;
  }
}

export function bigintAsNumber(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value;
}
