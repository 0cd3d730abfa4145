/**
 * Exact int64s for a client that @hey-api/openapi-ts generates (its fetch
 * client, with the transformers plugin's `bigInt: true`, as
 * scripts/generate-types.js runs it): the types say bigint, and its
 * transformers convert with `BigInt(value.toString())` after `JSON.parse`,
 * which has already turned 9007199254740993 into 9007199254740992. So answers
 * are re-read first, each integer beyond 2^53 becoming the string of its
 * digits, which `BigInt()` reads exactly; and bodies are written with a
 * bigint's every digit, where hey-api's serialiser writes it as a string.
 *
 * It needs what JSON gained with the source text proposal: a reviver's
 * `context.source` and `JSON.rawJSON` (Node.js 21 and later, current
 * browsers); TypeScript's lib does not declare them yet.
 */
import type { Client } from './generated/client/index.ts';

const { rawJSON } = JSON as JSON & { readonly rawJSON: (text: string) => unknown };

/** `client`, reading and writing int64s exactly. */
export function exactInt64s(client: Client): Client {
  client.setConfig({
    // hey-api's own serialiser writes a bigint as a string, which the service refuses.
    bodySerializer: (body: unknown) =>
      JSON.stringify(body, (_key, value: unknown) =>
        typeof value === 'bigint' ? rawJSON(`${value}`) : value,
      ),
  });
  client.interceptors.response.use(async (response) => {
    if (!/[/+]json\b/.test(response.headers.get('Content-Type') ?? '')) {
      return response;
    }
    // Each integer beyond 2^53 becomes the string of its digits, which the transformers read exactly.
    const exact = JSON.parse(await response.text(), (_key, value: unknown, context?: { source: string }) =>
      Number.isInteger(value) && !Number.isSafeInteger(value) ? context!.source : value,
    ) as unknown;
    const headers = new Headers(response.headers);
    headers.delete('Content-Length');
    return new Response(JSON.stringify(exact), {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  });
  return client;
}
