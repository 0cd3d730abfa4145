import type { HeadersOptions } from 'openapi-fetch';

import type { components } from './generated/openapi.js';
import type { Int64Input } from './int64.js';

/** A plant with its id: what reading, listing and the webhook give. The id is exact: a bigint. */
export type NewPlant = components['schemas']['NewPlant'];

/** A stored plant as creating it answers: its name, and its tag when it has one. */
export type Plant = components['schemas']['Plant'];

/** A plant to create. Its id may be a number while it is a safe integer. */
export type NewPlantInput = Omit<NewPlant, 'id'> & { readonly id: Int64Input };

/** One page of plants, in id order. */
export interface PlantPage {
  readonly plants: NewPlant[];
  /** The `after` of the next page, or undefined when this is the last. */
  readonly next: bigint | undefined;
}

export interface ListPlantsOptions {
  /** Plants per page, 1 to 100 (20 when left out). */
  readonly limit?: number;
  /** Only plants whose id is greater: the `next` of the previous page. */
  readonly after?: Int64Input;
  /** Only plants with exactly this tag. */
  readonly tag?: string;
}

/**
 * A change to a stored plant, as a JSON Merge Patch (RFC 7396): a member left
 * out (or `undefined`) keeps its value, `tag: null` removes the tag. The id
 * is the path's, never changed, so it is not part of the patch.
 */
export type PlantPatch = Omit<components['schemas']['PlantPatch'], 'id'>;

/**
 * A plant as stored now, and its ETag: the version it was read at, for a
 * later `updatePlant` or `deletePlant` to be made against (`ifMatch`).
 */
export interface PlantWithEtag {
  readonly plant: NewPlant;
  /** The `ETag` the service answered with (`"3"`): pass it back as it is. */
  readonly etag: string;
}

export interface Precondition {
  /**
   * An ETag from `getPlantWithEtag` or `updatePlant`: the change is made
   * only if the plant is still that version, and throws a
   * `PlantStorePreconditionFailedError` (412) if someone changed it since.
   * Left out, the change is made whatever the version.
   */
  readonly ifMatch?: string;
}

/** What any call may be given besides its own arguments. */
export interface CallOptions {
  /**
   * Aborts the call: it then rejects with the signal's reason, as `fetch`
   * does, whether it was waiting for an answer or for a retry. The client's
   * `timeoutMs` still applies to each attempt.
   */
  readonly signal?: AbortSignal;
  /** More headers to send (an `Authorization` here is sent instead of the client's token). */
  readonly headers?: HeadersOptions;
}
