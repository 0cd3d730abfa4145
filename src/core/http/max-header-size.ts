/**
 * Node.js's limit on a request's head (`--max-http-header-size`), in bytes: no header value reaching
 * the service is longer. Read through `getBuiltinModule()`, not an import: an ES module importing
 * node:http evaluates every export it has, and loads Node's fetch (undici) for its WebSocket, which
 * costs the start-up for nothing (docs/performance.md#start-up).
 */
export const { maxHeaderSize } = process.getBuiltinModule('node:http');
