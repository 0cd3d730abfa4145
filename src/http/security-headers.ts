import type { RequestHandler } from 'express';
import helmet from 'helmet';

/**
 * helmet's defaults (nosniff, frame and referrer policies, HSTS, a strict
 * Content-Security-Policy, no `X-Powered-By`, …). The Swagger UI at /docs
 * runs under that policy: it loads its scripts and styles from this origin
 * and draws its icons from data: URLs, both of which the defaults allow.
 *
 * One default is dropped: `upgrade-insecure-requests` would turn the Swagger
 * UI's calls into https ones when the service is reached over plain http (a
 * developer's machine, a private network behind TLS-terminating proxies).
 */
export function securityHeaders(): RequestHandler {
  return helmet({
    contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
  });
}
