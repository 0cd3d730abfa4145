import { SetMetadata } from '@nestjs/common';

/** What a token may do. Static tokens carry every scope; JWTs carry those in `scope`/`scp`. */
export const SCOPES = {
  'plants:read': 'Read plants',
  'plants:write': 'Create and delete plants',
} as const;

export type Scope = keyof typeof SCOPES;

export const REQUIRED_SCOPES_KEY = 'auth:requiredScopes';

/** The scopes a route needs, on top of a valid token. */
export const RequireScopes = (...scopes: Scope[]) => SetMetadata(REQUIRED_SCOPES_KEY, scopes);
