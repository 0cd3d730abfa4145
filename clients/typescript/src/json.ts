/**
 * JSON with exact int64 ids. An integer beyond 2^53 does not survive a
 * double, and ids use the whole int64 range, so every `id` member is read as
 * a bigint from its digits, and written from them.
 */

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

/** Parses JSON text, every `id` member that is a number becoming the bigint of its digits. */
export function parseJson(text: string): unknown {
  return sourceTextAvailable ? parseWithSourceText(text) : parseWithQuotedIds(text);
}

/** Reads each id from its source text, which the reviver is given. */
export function parseWithSourceText(text: string): unknown {
  return JSON.parse(text, (key, value: unknown, context?: ReviverContext) =>
    key === 'id' && typeof value === 'number' ? BigInt(context!.source!) : value,
  );
}

/**
 * Every JSON string, matched whole so that no match starts inside one; or an
 * `"id"` key with an integer value, whose digits are captured.
 */
const STRING_OR_INTEGER_ID = /"id"(\s*:\s*)(-?\d+)(?![\d.eE])|"(?:[^"\\]|\\.)*"/g;

/** Where the reviver gets no source text: ids are turned into strings of their digits before parsing. */
export function parseWithQuotedIds(text: string): unknown {
  const quoted = text.replace(STRING_OR_INTEGER_ID, (match, colon?: string, digits?: string) =>
    digits === undefined ? match : `"id"${colon}"${digits}"`,
  );
  return JSON.parse(quoted, (key, value: unknown) =>
    key === 'id' && typeof value === 'string' ? BigInt(value) : value,
  );
}

/** JSON text of an object whose `id` is written with every digit (`JSON.stringify` refuses bigints). */
export function stringifyWithId({
  id,
  ...others
}: {
  readonly id: bigint;
  readonly [member: string]: unknown;
}): string {
  const rest = JSON.stringify(others);
  return rest === '{}' ? `{"id":${id}}` : `{"id":${id},${rest.slice(1)}`;
}
