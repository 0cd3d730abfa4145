const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED_STRING = '"(?:[\\t \\x21\\x23-\\x5B\\x5D-\\x7E\\x80-\\xFF]|\\\\[\\t \\x21-\\x7E\\x80-\\xFF])*"';
const TYPE = new RegExp(`^[ \\t]*(${TOKEN}/${TOKEN})`);
const PARAMETER = new RegExp(`[ \\t]*;[ \\t]*(${TOKEN})=(${TOKEN}|${QUOTED_STRING})`, 'y');
const OPTIONAL_WHITE_SPACE = /^[ \t]*$/;

export interface MediaType {
  /** Lower case. */
  readonly type: string;
  /** By lower-case name; quoted values unquoted. */
  readonly parameters: ReadonlyMap<string, string>;
}

/**
 * A `Content-Type` as RFC 9110 (§8.3.1) writes it: `type/subtype`, then `; name=value` pairs, each
 * name once. Anything else is malformed, an empty parameter (`application/json;`) included, which
 * RFC 9110 tolerates but no client needs. The `content-type` package reads what it can of any header
 * and cannot be told to refuse the rest: a parameter without a value, or an unterminated quote, would
 * pass unseen, and a charset given twice would be read as its first value by it and perhaps its last
 * by a proxy.
 */
export function parseMediaType(header: string): MediaType | undefined {
  const type = TYPE.exec(header);
  if (!type) {
    return undefined;
  }
  const parameters = new Map<string, string>();
  let index = type[0].length;
  for (;;) {
    PARAMETER.lastIndex = index;
    const parameter = PARAMETER.exec(header);
    if (!parameter) {
      break;
    }
    const name = parameter[1].toLowerCase();
    if (parameters.has(name)) {
      return undefined;
    }
    parameters.set(name, unquote(parameter[2]));
    index = PARAMETER.lastIndex;
  }
  return OPTIONAL_WHITE_SPACE.test(header.slice(index))
    ? { type: type[1].toLowerCase(), parameters }
    : undefined;
}

function unquote(value: string): string {
  return value.startsWith('"') ? value.slice(1, -1).replace(/\\(.)/gs, '$1') : value;
}
