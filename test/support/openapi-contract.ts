import { isDeepStrictEqual } from 'node:util';

/**
 * Where `emitted` departs from `reference`: every point the reference makes
 * must hold in the emitted document, which may add to it. `required` lists
 * must name the same fields; a `description` may go on after the reference's
 * words; any other list must contain each of the reference's items.
 */
export function contractViolations(reference: unknown, emitted: unknown, at = '$'): string[] {
  if (Array.isArray(reference)) {
    if (!Array.isArray(emitted)) {
      return [`${at}: expected a list`];
    }
    if (at.endsWith('.required')) {
      const same = isDeepStrictEqual([...reference].sort(), [...(emitted as unknown[])].sort());
      return same ? [] : [`${at}: expected ${JSON.stringify(reference)}, got ${JSON.stringify(emitted)}`];
    }
    return reference.flatMap((item, index) =>
      emitted.some((candidate) => contractViolations(item, candidate).length === 0)
        ? []
        : [`${at}[${index}]: ${JSON.stringify(item)} is missing`],
    );
  }
  if (reference !== null && typeof reference === 'object') {
    if (emitted === null || typeof emitted !== 'object' || Array.isArray(emitted)) {
      return [`${at}: expected an object`];
    }
    return Object.entries(reference).flatMap(([key, value]) =>
      contractViolations(value, (emitted as Record<string, unknown>)[key], `${at}.${key}`),
    );
  }
  if (at.endsWith('.description') && typeof reference === 'string' && typeof emitted === 'string') {
    return emitted.toLowerCase().startsWith(reference.toLowerCase())
      ? []
      : [`${at}: expected a description starting "${reference}", got "${emitted}"`];
  }
  return reference === emitted
    ? []
    : [`${at}: expected ${JSON.stringify(reference)}, got ${JSON.stringify(emitted)}`];
}
