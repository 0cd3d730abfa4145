/**
 * helmet's headers as the service sends them on its JSON routes (`API_HEADERS`
 * in src/core/http/http-edge.ts), as a flat list for `writeHead`: the floor and
 * the ceiling send the same bytes.
 */
export const SECURITY_HEADERS = [
  ['Content-Security-Policy', "default-src 'none';frame-ancestors 'none'"],
  ['Cross-Origin-Resource-Policy', 'same-origin'],
  ['Referrer-Policy', 'no-referrer'],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'SAMEORIGIN'],
].flat();
