/**
 * JSON with exact int64s. An integer beyond 2^53 does not survive a double,
 * and ids use the whole int64 range, so the members that the interface
 * declares int64 are read as bigints from their digits, and bigints are
 * written with every digit. Which members those are comes from the document
 * (src/generated/int64.ts), so that every operation is read alike, a new
 * resource's too.
 */
import { schemas as SCHEMAS } from './generated/int64.js';

/**
 * Where a JSON value holds int64s, as generated from the document: the value
 * itself (`'int64'`), the items of an array, the members of an object
 * (by name, or any other), one of several alternatives (a value read as any
 * of them), or a schema of the document by name.
 */
export type Int64Shape =
  | 'int64'
  | { readonly ref: string }
  | { readonly items: Int64Shape }
  | {
      readonly properties: Readonly<Record<string, Int64Shape>>;
      readonly additionalProperties?: Int64Shape;
    }
  | { readonly anyOf: readonly Int64Shape[] };

/** What `JSON.parse` hands a reviver as its third argument where it can (Node.js 21+, current browsers). */
interface ReviverContext {
  readonly source?: string;
}

const sourceTextAvailable = ((): boolean => {
  let source: string | undefined;
  JSON.parse('1', (_key, value: unknown, context?: ReviverContext) => {
    source = context?.source;
    return value;
  });
  return source === '1';
})();

const INTEGER = /^-?\d+$/;

/**
 * Parses JSON text, every number at a place `shape` says is an int64 becoming
 * the bigint of its digits; every other number is what `JSON.parse` makes of
 * it. Without a shape, it is `JSON.parse`.
 */
export function parseJson(text: string, shape?: Int64Shape): unknown {
  if (shape === undefined) {
    return JSON.parse(text);
  }
  const parsed = sourceTextAvailable ? parseIntegersWithSourceText(text) : parseIntegersByQuoting(text);
  return revive(parsed, expand([shape]));
}

/** JSON text in which every integer is a bigint, read from the source text the reviver is given. */
export function parseIntegersWithSourceText(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown, context?: ReviverContext) =>
    typeof value === 'number' && INTEGER.test(context!.source!) ? BigInt(context!.source!) : value,
  );
}

/**
 * Every JSON string, matched whole so that no match starts inside one (and
 * then whether it is a member's name); or a number, with its fraction and
 * exponent if any.
 */
const STRING_OR_NUMBER = /"(?:[^"\\]|\\.)*"(\s*:)?|-?\d+(\.\d+)?([eE][+-]?\d+)?/g;

/**
 * The same where the reviver gets no source text: before parsing, every
 * string value is marked `s`, every integer becomes a string marked `i`, so
 * that after parsing the two cannot be mistaken for each other.
 */
export function parseIntegersByQuoting(text: string): unknown {
  const marked = text.replace(
    STRING_OR_NUMBER,
    (match, colon?: string, fraction?: string, exponent?: string) => {
      if (match.startsWith('"')) {
        return colon === undefined ? `"s${match.slice(1)}` : match;
      }
      return fraction === undefined && exponent === undefined ? `"i${match}"` : match;
    },
  );
  return JSON.parse(marked, (_key, value: unknown) => {
    if (typeof value !== 'string') {
      return value;
    }
    return value.startsWith('i') ? BigInt(value.slice(1)) : value.slice(1);
  });
}

/** The shapes, alternatives and references followed, down to those that say something of the value itself. */
function expand(shapes: readonly Int64Shape[], seen = new Set<Int64Shape>()): Int64Shape[] {
  return shapes.flatMap((shape) => {
    if (seen.has(shape)) {
      return [];
    }
    seen.add(shape);
    if (typeof shape === 'object' && 'ref' in shape) {
      const named = SCHEMAS[shape.ref];
      return named === undefined ? [] : expand([named], seen);
    }
    if (typeof shape === 'object' && 'anyOf' in shape) {
      return expand(shape.anyOf, seen);
    }
    return [shape];
  });
}

/** `value` with each bigint that `shapes` do not place at an int64 made a number again, as JSON.parse makes it. */
function revive(value: unknown, shapes: readonly Int64Shape[]): unknown {
  if (typeof value === 'bigint') {
    return shapes.includes('int64') ? value : Number(value);
  }
  if (Array.isArray(value)) {
    const items = expand(
      shapes.flatMap((shape) => (typeof shape === 'object' && 'items' in shape ? [shape.items] : [])),
    );
    for (let index = 0; index < value.length; index++) {
      value[index] = revive(value[index], items);
    }
    return value;
  }
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    for (const name of Object.keys(record)) {
      const members = shapes.flatMap((shape) => {
        if (typeof shape !== 'object' || !('properties' in shape)) {
          return [];
        }
        const member = Object.hasOwn(shape.properties, name)
          ? shape.properties[name]
          : shape.additionalProperties;
        return member === undefined ? [] : [member];
      });
      const revived = revive(record[name], expand(members));
      if (revived !== record[name]) {
        // A data property of the parsed object's own, even `__proto__`: assigning sets it, and nothing else.
        record[name] = revived;
      }
    }
  }
  return value;
}

/**
 * JSON text of `value`, as `JSON.stringify` writes it, except that a bigint
 * (which `JSON.stringify` refuses) is written with every digit.
 */
export function stringifyJson(value: unknown): string {
  const text = write(value, '');
  if (text === undefined) {
    throw new TypeError(`${typeof value} is not JSON`);
  }
  return text;
}

function write(value: unknown, key: string): string | undefined {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON(key: string): unknown }).toJSON(key);
  }
  if (typeof value === 'bigint') {
    return value.toString();
  }
  if (typeof value !== 'object' || value === null || isBoxedPrimitive(value)) {
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) {
    return `[${value.map((item, index) => write(item, String(index)) ?? 'null').join(',')}]`;
  }
  const members: string[] = [];
  for (const [name, member] of Object.entries(value)) {
    const text = write(member, name);
    if (text !== undefined) {
      members.push(`${JSON.stringify(name)}:${text}`);
    }
  }
  return `{${members.join(',')}}`;
}

function isBoxedPrimitive(value: object): boolean {
  return value instanceof Number || value instanceof String || value instanceof Boolean;
}
