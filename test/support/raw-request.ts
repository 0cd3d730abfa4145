import { request } from 'node:http';

export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  /**
   * Sent exactly as given: nothing is added but Host (and Content-Length when a body is given
   * and none is). A list sends the header once per value.
   */
  readonly headers?: Record<string, string | string[]>;
  readonly body?: string | Buffer;
}

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/**
 * One HTTP request with full control of its bytes, as a client, a fuzzer or
 * an attacker would send it (supertest adds headers of its own).
 */
export function rawRequest(baseUrl: string, options: RawRequest): Promise<RawResponse> {
  // The path goes out as written: a URL object would resolve dot segments and re-encode it.
  const { hostname, port } = new URL(baseUrl);
  const headers = { ...options.headers };
  if (
    options.body !== undefined &&
    !Object.keys(headers).some((name) => /^(content-length|transfer-encoding)$/i.test(name))
  ) {
    headers['Content-Length'] = String(Buffer.byteLength(options.body));
  }
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = request(
      {
        hostname,
        port,
        path: options.path ?? '/plants',
        method: options.method ?? 'POST',
        headers,
        agent: false,
      },
      (incoming) => {
        answered = true;
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text, json });
        });
      },
    );
    // A server may answer and close before it has read everything (413): the answer is what counts.
    outgoing.on('error', (error) => {
      if (!answered) {
        reject(error);
      }
    });
    outgoing.end(options.body);
  });
}
