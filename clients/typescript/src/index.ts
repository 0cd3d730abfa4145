export { createPlantStoreClient, type PlantStoreClient, type PlantStoreClientOptions } from './client.js';
export {
  PlantStoreError,
  PlantStoreNetworkError,
  PlantStorePreconditionFailedError,
  PlantStoreTimeoutError,
} from './errors.js';
export type { Int64Input } from './int64.js';
export type { Answer, Call, ListingPath, Operations, Pages } from './operations.js';
export { isIdempotent, type RetryCandidate, type RetryOptions, type TokenSource } from './transport.js';
// The types of the calls' options and answers: types.ts declares nothing else.
export type * from './types.js';
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions } from './webhook.js';
export type { components, paths, webhooks } from './generated/openapi.js';
export type { Middleware, MiddlewareCallbackParams } from 'openapi-fetch';
