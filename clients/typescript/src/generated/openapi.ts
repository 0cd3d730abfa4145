/**
 * Generated from openapi.yaml by openapi-typescript: do not edit. Regenerate it with
 * `npm run generate --workspace @plant-store/client` (or `npm run openapi`, which first rewrites openapi.yaml).
 */

export interface paths {
    "/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness: the process is up and serving HTTP
         * @description Checks nothing beyond the process itself, so that a slow database never gets it restarted.
         */
        get: operations["getLiveness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Readiness: the database answers a ping
         * @description Pings PostgreSQL through the pool the requests use (one ping serves every check of the next second); 503 while it does not answer, or once the service is shutting down.
         */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List audit events
         * @description Returns the changes the audit trail keeps, oldest first, a page at a time: a record’s history with `resource` and `id`, an actor’s with `actor`, those since a time with `since`. When there are more, the Link header gives the next page (rel="next"). Needs the audit:read scope.
         */
        get: operations["listAuditEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List plants
         * @description Returns the plants a page at a time, in id order or as `sort` says, filtered by the parameters given (all of them), each served by an index. When there are more, the Link header gives the next page (rel="next"). With `Prefer: count=exact` or `count=estimated`, Content-Range says how many plants the filters select.
         */
        get: operations["listPlants"];
        put?: never;
        /**
         * Create a plant
         * @description Creates a new plant in the store. Sending the same plant again answers 200 and writes nothing; another plant under an id that is taken answers 409.
         */
        post: operations["addPlant"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/plants/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a plant
         * @description Returns the plant stored under the id, and its version as ETag. With If-None-Match naming that version, answers 304 with no body.
         */
        get: operations["getPlant"];
        put?: never;
        post?: never;
        /**
         * Delete a plant
         * @description Deletes the plant stored under the id; with If-Match, only if it is still at that version (else 412, and nothing changes).
         */
        delete: operations["deletePlant"];
        options?: never;
        head?: never;
        /**
         * Change a plant
         * @description Applies a JSON Merge Patch (RFC 7396) to the plant: the properties sent are set, `"tag": null` removes the tag, the others stay as they are; the id cannot change. With If-Match, only if the plant is still at that version (else 412, and nothing changes). An empty patch changes nothing.
         */
        patch: operations["updatePlant"];
        trace?: never;
    };
}
export interface webhooks {
    "plant/webhook": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A new plant
         * @description Sent to each subscriber as `plant.created`, at least once: de-duplicate on Webhook-Id. Signed as the Standard Webhooks specification says: verify Webhook-Signature with any of its libraries (or as docs/webhooks.md shows) before trusting the body.
         */
        post: operations["newPlantWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "plant/updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant changed
         * @description Sent to each subscriber as `plant.updated`, at least once: de-duplicate on Webhook-Id. Signed as the Standard Webhooks specification says: verify Webhook-Signature with any of its libraries (or as docs/webhooks.md shows) before trusting the body.
         */
        post: operations["plantUpdatedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "plant/deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A plant deleted
         * @description Sent to each subscriber as `plant.deleted`, at least once: de-duplicate on Webhook-Id. Signed as the Standard Webhooks specification says: verify Webhook-Signature with any of its libraries (or as docs/webhooks.md shows) before trusting the body.
         */
        post: operations["plantDeletedWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description What one check found */
        HealthIndicator: {
            /**
             * @description The dependency answered
             * @enum {string}
             */
            status: "up";
            /**
             * Format: int32
             * @description How long the check took, in milliseconds
             */
            responseTime?: number;
        };
        /** @description A passing health check: each indicator checked, and up */
        HealthCheck: {
            /**
             * @description Every check passed
             * @enum {string}
             */
            status: "ok";
            /** @description The indicators that are up, by name (`database`) */
            info: {
                [key: string]: components["schemas"]["HealthIndicator"];
            };
            /** @description Empty: no indicator failed */
            error: {
                [key: string]: components["schemas"]["HealthIndicator"];
            };
            /** @description Every indicator checked, by name */
            details: {
                [key: string]: components["schemas"]["HealthIndicator"];
            };
        };
        Error: {
            /**
             * Format: int32
             * @description Numeric error value: the HTTP status of the answer
             * @example 400
             */
            error: number;
            /**
             * @description Error message text
             * @example name must be a string of 1 to 255 characters that is not only white space
             */
            message: string;
        };
        /** @description One change to one record, as the audit trail keeps it */
        AuditEvent: {
            /**
             * Format: int64
             * @description The event’s number: events are listed in its order
             * @example 17
             */
            id: bigint;
            /**
             * Format: date-time
             * @description The time of the change’s transaction (RFC 3339)
             * @example 2026-11-28T10:20:30.123Z
             */
            at: string;
            /**
             * @description Who made the change: `token:<name>` for a static token (a label when it has no name), `jwt:<sub>` for a JWT, `service:<task>` for the service’s own work (retention)
             * @example jwt:client-42
             */
            actor: string;
            /**
             * @description The issuer of the JWT the actor’s subject belongs to
             * @example https://issuer.example
             */
            actorIssuer?: string;
            /**
             * @description What was done
             * @example update
             * @enum {string}
             */
            action: "create" | "update" | "delete" | "restore";
            /**
             * @description The resource, as its path names it
             * @example plants
             */
            resource: string;
            /**
             * @description The record’s id, as text
             * @example 10
             */
            resourceId: string;
            /**
             * @description For an update, each changed field as `{"from": …, "to": …}`; for a create or a restore, the stored fields; for a delete, the fields as they were. A sensitive field is `{"redacted": true}`, never its value
             * @example {
             *       "name": {
             *         "from": "Monstera deliciosa",
             *         "to": "Monstera adansonii"
             *       }
             *     }
             */
            changes: {
                [key: string]: unknown;
            };
            /**
             * @description The `X-Request-Id` of the request that made it
             * @example 0b9c…
             */
            requestId?: string;
            /**
             * @description The trace the request was recorded in, when it was
             * @example 4bf92f3577b34da6a3ce929d0e0e4736
             */
            traceId?: string;
        };
        /** @description The payload used to create a plant */
        NewPlant: {
            /**
             * Format: int64
             * @description Identification number of the plant
             * @example 10
             */
            id: bigint;
            /**
             * @description The name of the plant
             * @example Monstera deliciosa
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
        };
        /** @description A plant in the store */
        Plant: {
            /**
             * @description The name of the plant
             * @example Monstera deliciosa
             */
            name: string;
            /**
             * @description Tag that specifies the type of the plant
             * @example aroid
             */
            tag?: string;
        };
        /** @description A JSON Merge Patch (RFC 7396) of a plant: the properties sent are set, `"tag": null` removes the tag, the others are left as they are */
        PlantPatch: {
            /**
             * Format: int64
             * @description Identification number of the plant: if sent, the id in the path (an id cannot be changed)
             * @example 10
             */
            id?: bigint;
            /**
             * @description The name of the plant
             * @example Monstera deliciosa
             */
            name?: string;
            /**
             * @description Tag that specifies the type of the plant; null removes it
             * @example aroid
             */
            tag?: string | null;
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id, in every answer and in every log line about the request: the client's X-Request-Id when it is 1 to 128 of `A-Z a-z 0-9 . _ : -`, else a new UUID */
        RequestId: string;
        /** @description The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests per window of `w` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
        RateLimitPolicy: string;
        /** @description What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the budget is whole again in `t` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
        RateLimit: string;
        /** @description Never sent with this answer: it is not counted against any rate limit (a public route, or a request refused before it is counted) */
        NotCounted: unknown;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getLiveness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The process is alive */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "info": {},
                     *       "error": {},
                     *       "details": {}
                     *     }
                     */
                    "application/json": components["schemas"]["HealthCheck"];
                };
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Ready to serve requests */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "status": "ok",
                     *       "info": {
                     *         "database": {
                     *           "status": "up",
                     *           "responseTime": 2
                     *         }
                     *       },
                     *       "error": {},
                     *       "details": {
                     *         "database": {
                     *           "status": "up",
                     *           "responseTime": 2
                     *         }
                     *       }
                     *     }
                     */
                    "application/json": components["schemas"]["HealthCheck"];
                };
            };
            /** @description The database is unavailable, or the service is overloaded or shutting down; see Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "The database is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listAuditEvents: {
        parameters: {
            query?: {
                /** @description Only the events of this resource, as its path names it (`plants`); an unknown one is refused */
                resource?: string;
                /** @description Only the events of the record with this id (with `resource`) */
                id?: string;
                /** @description Only the events of this actor (`token:ci`, `jwt:client-42`) */
                actor?: string;
                /** @description Only the events at or after this time (RFC 3339) */
                since?: string;
                /** @description The maximum number of results to return */
                limit?: number;
                /** @description Return the events after this one: the last id of the previous page (see the Link header) */
                after?: bigint;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit events */
            200: {
                headers: {
                    /** @description The next page, when there is one: `</audit-events?resource=plants&id=10&after=42>; rel="next"` */
                    Link?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEvent"][];
                };
            };
            /** @description Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Sent when the request has more than one Authorization header (RFC 6750 `invalid_request`) */
                    "WWW-Authenticate"?: "Bearer realm=\"plant-store\", error=\"invalid_request\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name must be a string of 1 to 255 characters that is not only white space, without U+0000"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is missing, malformed, unknown or expired */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description The bearer challenge (RFC 6750): `error="invalid_token"` when a bearer token was sent */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\"" | "Bearer realm=\"plant-store\", error=\"invalid_token\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "The bearer token is invalid or expired"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is valid but lacks the scope this operation needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    /** @description The bearer challenge (RFC 6750), naming the scope the token lacks */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\", error=\"insufficient_scope\", scope=\"audit:read\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "The bearer token lacks the audit:read scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests for the token, or failed authentications from the address; see Retry-After */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests per window of `w` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    "RateLimit-Policy": string;
                    /** @description What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the budget is whole again in `t` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    RateLimit: string;
                    /** @description Seconds until the spent budget allows a request again */
                    "Retry-After": bigint;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "Too many requests for this token; retry after 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault; details are in the log under the request id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "Internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unavailable, or the service is overloaded or shutting down; see Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "The database is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    listPlants: {
        parameters: {
            query?: {
                /** @description The order: comma-separated fields, each ascending, or descending after a `-` (`name,-id`). The id is always the last key, as the tie-breaker; left out, it runs the way of the key before it. In id order unless given. */
                sort?: ("id" | "-id" | "name" | "-name" | "tag" | "-tag")[];
                /** @description The maximum number of results to return */
                limit?: number;
                /** @description Where the page starts: the cursor of the Link header (rel="next") of the page before, sent with the same sort and filters (else 400). Opaque. */
                cursor?: string;
                /** @description Return the plants whose id is greater than this: the last id of the previous page (see the Link header). In id order only. */
                after?: bigint;
                /** @description Only the plants whose id is this */
                id?: bigint;
                /** @description Only the plants whose id is not this */
                "id[ne]"?: bigint;
                /** @description Only the plants whose id is less than this */
                "id[lt]"?: bigint;
                /** @description Only the plants whose id is this or less */
                "id[lte]"?: bigint;
                /** @description Only the plants whose id is greater than this */
                "id[gt]"?: bigint;
                /** @description Only the plants whose id is this or greater */
                "id[gte]"?: bigint;
                /** @description Only the plants whose id is one of these (repeat the parameter for each, at most 100) */
                "id[in]"?: bigint[];
                /** @description Only the plants whose name is this */
                name?: string;
                /** @description Only the plants whose name is not this */
                "name[ne]"?: string;
                /** @description Only the plants whose name is less than this */
                "name[lt]"?: string;
                /** @description Only the plants whose name is this or less */
                "name[lte]"?: string;
                /** @description Only the plants whose name is greater than this */
                "name[gt]"?: string;
                /** @description Only the plants whose name is this or greater */
                "name[gte]"?: string;
                /** @description Only the plants whose name is one of these (repeat the parameter for each, at most 100) */
                "name[in]"?: string[];
                /** @description Only the plants whose name starts with this (case-sensitive) */
                "name[prefix]"?: string;
                /** @description Only the plants whose name contains this, ignoring case: at least 3 characters */
                "name[contains]"?: string;
                /** @description Only the plants whose tag is this */
                tag?: string;
                /** @description Only the plants whose tag is not this (those without a tag included) */
                "tag[ne]"?: string;
                /** @description Only the plants whose tag is less than this */
                "tag[lt]"?: string;
                /** @description Only the plants whose tag is this or less */
                "tag[lte]"?: string;
                /** @description Only the plants whose tag is greater than this */
                "tag[gt]"?: string;
                /** @description Only the plants whose tag is this or greater */
                "tag[gte]"?: string;
                /** @description Only the plants whose tag is one of these (repeat the parameter for each, at most 100) */
                "tag[in]"?: string[];
                /** @description Only the plants whose tag starts with this (case-sensitive) */
                "tag[prefix]"?: string;
                /** @description Only the plants whose tag contains this, ignoring case: at least 3 characters */
                "tag[contains]"?: string;
                /** @description Only the plants without a tag (true), or with one (false) */
                "tag[null]"?: boolean;
            };
            header?: {
                /** @description RFC 7240 preferences. `count=exact` counts the rows the filters select (Content-Range), falling back to the estimate when counting takes too long; `count=estimated` takes the planner’s estimate, cheap at any size. Others are ignored. The whole request head is at most 16384 bytes */
                Prefer?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of plants, each with its id */
            200: {
                headers: {
                    /** @description The next page, when there is one: the same query and a `cursor` (`</plants?sort=name&cursor=…>; rel="next"`), or, in the default order with equality filters alone, `after` (`</plants?limit=20&after=42>; rel="next"`) */
                    Link?: string;
                    /** @description With `Prefer: count=…`: the rows of this page among those the filters select, and their number (`0-19/1042`); `*\/1042` for an empty page, or when the page came by `after`, whose position is unknown */
                    "Content-Range"?: string;
                    /** @description With `Prefer: count=…`: the count Content-Range gives, `count=estimated` when an exact count took too long */
                    "Preference-Applied"?: "count=exact" | "count=estimated";
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewPlant"][];
                };
            };
            /** @description Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Sent when the request has more than one Authorization header (RFC 6750 `invalid_request`) */
                    "WWW-Authenticate"?: "Bearer realm=\"plant-store\", error=\"invalid_request\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name must be a string of 1 to 255 characters that is not only white space, without U+0000"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is missing, malformed, unknown or expired */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description The bearer challenge (RFC 6750): `error="invalid_token"` when a bearer token was sent */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\"" | "Bearer realm=\"plant-store\", error=\"invalid_token\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "The bearer token is invalid or expired"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is valid but lacks the scope this operation needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    /** @description The bearer challenge (RFC 6750), naming the scope the token lacks */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\", error=\"insufficient_scope\", scope=\"plants:read\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "The bearer token lacks the plants:read scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests for the token, or failed authentications from the address; see Retry-After */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests per window of `w` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    "RateLimit-Policy": string;
                    /** @description What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the budget is whole again in `t` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    RateLimit: string;
                    /** @description Seconds until the spent budget allows a request again */
                    "Retry-After": bigint;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "Too many requests for this token; retry after 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault; details are in the log under the request id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "Internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unavailable, or the service is overloaded or shutting down; see Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "The database is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    addPlant: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Plant to add to the store */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description The stored plant */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Plant"];
                };
            };
            /** @description Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Sent when the request has more than one Authorization header (RFC 6750 `invalid_request`) */
                    "WWW-Authenticate"?: "Bearer realm=\"plant-store\", error=\"invalid_request\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name must be a string of 1 to 255 characters that is not only white space, without U+0000"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is missing, malformed, unknown or expired */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description The bearer challenge (RFC 6750): `error="invalid_token"` when a bearer token was sent */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\"" | "Bearer realm=\"plant-store\", error=\"invalid_token\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "The bearer token is invalid or expired"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is valid but lacks the scope this operation needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    /** @description The bearer challenge (RFC 6750), naming the scope the token lacks */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\", error=\"insufficient_scope\", scope=\"plants:write\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "The bearer token lacks the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The id is taken by a plant with a different name or tag */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 409,
                     *       "message": "Plant id 42 is already taken by a plant with a different name or tag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 16 KiB */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 413,
                     *       "message": "Request body is larger than 16384 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not application/json in UTF-8 (or, for PATCH, application/merge-patch+json) */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "Content-Type must be application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests for the token, or failed authentications from the address; see Retry-After */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests per window of `w` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    "RateLimit-Policy": string;
                    /** @description What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the budget is whole again in `t` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    RateLimit: string;
                    /** @description Seconds until the spent budget allows a request again */
                    "Retry-After": bigint;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "Too many requests for this token; retry after 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault; details are in the log under the request id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "Internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unavailable, or the service is overloaded or shutting down; see Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "The database is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    getPlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Entity tags (or `*`) the client holds: when one is the current version, the answer is 304 with no body. The whole request head is at most 16384 bytes (else 431) */
                "If-None-Match"?: string;
                /** @description Without If-None-Match: when the record has not changed since this time (its Last-Modified), the answer is 304 with no body. A value that is not an HTTP-date is ignored, as RFC 9110 asks */
                "If-Modified-Since"?: string;
            };
            path: {
                /** @description Identification number of the plant */
                id: bigint;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The plant, with its id */
            200: {
                headers: {
                    /** @description The record's version as a strong entity tag (`"3"`): send it in If-None-Match to read it again only if it changed, or in If-Match to change it only if it did not */
                    ETag: string;
                    /** @description The time of the record's last change, to the second, as an HTTP-date: send it in If-Modified-Since to read the record again only if it changed since, or in If-Unmodified-Since to change it only if it did not */
                    "Last-Modified"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewPlant"];
                };
            };
            /** @description The record is at a version If-None-Match names, or unchanged since If-Modified-Since: the copy the client holds is current */
            304: {
                headers: {
                    /** @description The record's version as a strong entity tag (`"3"`): send it in If-None-Match to read it again only if it changed, or in If-Match to change it only if it did not */
                    ETag: string;
                    /** @description The time of the record's last change, to the second, as an HTTP-date: send it in If-Modified-Since to read the record again only if it changed since, or in If-Unmodified-Since to change it only if it did not */
                    "Last-Modified"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Sent when the request has more than one Authorization header (RFC 6750 `invalid_request`) */
                    "WWW-Authenticate"?: "Bearer realm=\"plant-store\", error=\"invalid_request\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name must be a string of 1 to 255 characters that is not only white space, without U+0000"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is missing, malformed, unknown or expired */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description The bearer challenge (RFC 6750): `error="invalid_token"` when a bearer token was sent */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\"" | "Bearer realm=\"plant-store\", error=\"invalid_token\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "The bearer token is invalid or expired"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is valid but lacks the scope this operation needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    /** @description The bearer challenge (RFC 6750), naming the scope the token lacks */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\", error=\"insufficient_scope\", scope=\"plants:read\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "The bearer token lacks the plants:read scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No plant has this id */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "No plant has the id 42"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests for the token, or failed authentications from the address; see Retry-After */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests per window of `w` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    "RateLimit-Policy": string;
                    /** @description What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the budget is whole again in `t` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    RateLimit: string;
                    /** @description Seconds until the spent budget allows a request again */
                    "Retry-After": bigint;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "Too many requests for this token; retry after 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault; details are in the log under the request id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "Internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unavailable, or the service is overloaded or shutting down; see Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "The database is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    deletePlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the record only if it is at one of these versions (its ETag), or, with `*`, if it exists; else 412 and nothing changes. Required when the service says so (REQUIRE_IF_MATCH): 428 without it. The whole request head is at most 16384 bytes (else 431) */
                "If-Match"?: string;
                /** @description Without If-Match: change the record only if it has not changed since this time (its Last-Modified); else 412 and nothing changes. A value that is not an HTTP-date is ignored, as RFC 9110 asks */
                "If-Unmodified-Since"?: string;
            };
            path: {
                /** @description Identification number of the plant */
                id: bigint;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Deleted */
            204: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Sent when the request has more than one Authorization header (RFC 6750 `invalid_request`) */
                    "WWW-Authenticate"?: "Bearer realm=\"plant-store\", error=\"invalid_request\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name must be a string of 1 to 255 characters that is not only white space, without U+0000"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is missing, malformed, unknown or expired */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description The bearer challenge (RFC 6750): `error="invalid_token"` when a bearer token was sent */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\"" | "Bearer realm=\"plant-store\", error=\"invalid_token\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "The bearer token is invalid or expired"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is valid but lacks the scope this operation needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    /** @description The bearer challenge (RFC 6750), naming the scope the token lacks */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\", error=\"insufficient_scope\", scope=\"plants:write\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "The bearer token lacks the plants:write scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No plant has this id */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "No plant has the id 42"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description If-Match names no version the record is at: it changed since it was read. Nothing was changed */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "The record has changed since the version If-Match names; read it again for its current ETag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service requires If-Match on changes (REQUIRE_IF_MATCH), and none was sent */
            428: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 428,
                     *       "message": "This change needs an If-Match header: send the ETag of the version it applies to, or *"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests for the token, or failed authentications from the address; see Retry-After */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests per window of `w` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    "RateLimit-Policy": string;
                    /** @description What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the budget is whole again in `t` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    RateLimit: string;
                    /** @description Seconds until the spent budget allows a request again */
                    "Retry-After": bigint;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "Too many requests for this token; retry after 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault; details are in the log under the request id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "Internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unavailable, or the service is overloaded or shutting down; see Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "The database is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    updatePlant: {
        parameters: {
            query?: never;
            header?: {
                /** @description Change the record only if it is at one of these versions (its ETag), or, with `*`, if it exists; else 412 and nothing changes. Required when the service says so (REQUIRE_IF_MATCH): 428 without it. The whole request head is at most 16384 bytes (else 431) */
                "If-Match"?: string;
                /** @description Without If-Match: change the record only if it has not changed since this time (its Last-Modified); else 412 and nothing changes. A value that is not an HTTP-date is ignored, as RFC 9110 asks */
                "If-Unmodified-Since"?: string;
            };
            path: {
                /** @description Identification number of the plant */
                id: bigint;
            };
            cookie?: never;
        };
        /** @description What to change */
        requestBody: {
            content: {
                "application/merge-patch+json": components["schemas"]["PlantPatch"];
                "application/json": components["schemas"]["PlantPatch"];
            };
        };
        responses: {
            /** @description The plant as it is now, with its id */
            200: {
                headers: {
                    /** @description The record's version as a strong entity tag (`"3"`): send it in If-None-Match to read it again only if it changed, or in If-Match to change it only if it did not */
                    ETag: string;
                    /** @description The time of the record's last change, to the second, as an HTTP-date: send it in If-Modified-Since to read the record again only if it changed since, or in If-Unmodified-Since to change it only if it did not */
                    "Last-Modified"?: string;
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NewPlant"];
                };
            };
            /** @description Unexpected error: the request is malformed (missing body, invalid JSON) or breaks a rule of its schema */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Sent when the request has more than one Authorization header (RFC 6750 `invalid_request`) */
                    "WWW-Authenticate"?: "Bearer realm=\"plant-store\", error=\"invalid_request\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 400,
                     *       "message": "name must be a string of 1 to 255 characters that is not only white space, without U+0000"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is missing, malformed, unknown or expired */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description The bearer challenge (RFC 6750): `error="invalid_token"` when a bearer token was sent */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\"" | "Bearer realm=\"plant-store\", error=\"invalid_token\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 401,
                     *       "message": "The bearer token is invalid or expired"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The bearer token is valid but lacks the scope this operation needs */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    /** @description The bearer challenge (RFC 6750), naming the scope the token lacks */
                    "WWW-Authenticate": "Bearer realm=\"plant-store\", error=\"insufficient_scope\", scope=\"plants:read\"" | "Bearer realm=\"plant-store\", error=\"insufficient_scope\", scope=\"plants:write\"";
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 403,
                     *       "message": "The bearer token lacks the plants:read scope"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description No plant has this id */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 404,
                     *       "message": "No plant has the id 42"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description If-Match names no version the record is at: it changed since it was read. Nothing was changed */
            412: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 412,
                     *       "message": "The record has changed since the version If-Match names; read it again for its current ETag"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is larger than 16 KiB */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["NotCounted"];
                    RateLimit: components["headers"]["NotCounted"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 413,
                     *       "message": "Request body is larger than 16384 bytes"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The request body is not application/json in UTF-8 (or, for PATCH, application/merge-patch+json) */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 415,
                     *       "message": "Content-Type must be application/json"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The service requires If-Match on changes (REQUIRE_IF_MATCH), and none was sent */
            428: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 428,
                     *       "message": "This change needs an If-Match header: send the ETag of the version it applies to, or *"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Too many requests for the token, or failed authentications from the address; see Retry-After */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    /** @description The limit this answer was counted against (draft-ietf-httpapi-ratelimit-headers-10): `q` requests per window of `w` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    "RateLimit-Policy": string;
                    /** @description What is left of that limit (draft-ietf-httpapi-ratelimit-headers-10): `r` more requests, and the budget is whole again in `t` seconds. Sent with every answer counted against a limit: policy `token` once the request is authenticated and has the scope the operation needs; policy `auth-failures` with a refused bearer token (401, and 429 once the address is locked out). Not sent while that limit is off */
                    RateLimit: string;
                    /** @description Seconds until the spent budget allows a request again */
                    "Retry-After": bigint;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 429,
                     *       "message": "Too many requests for this token; retry after 12 s"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description An unexpected fault; details are in the log under the request id */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 500,
                     *       "message": "Internal server error"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description The database is unavailable, or the service is overloaded or shutting down; see Retry-After */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["RequestId"];
                    "RateLimit-Policy": components["headers"]["RateLimitPolicy"];
                    RateLimit: components["headers"]["RateLimit"];
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": 503,
                     *       "message": "The database is unavailable; retry later"
                     *     }
                     */
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    newPlantWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id, the same on every attempt and for every subscriber; it is signed */
                "Webhook-Id": string;
                /** @description When this attempt was signed, in Unix seconds: refuse one too far from now (a replay) */
                "Webhook-Timestamp": bigint;
                /** @description For each key of WEBHOOK_SECRET, `v1,` and the base64 HMAC-SHA256 of `<Webhook-Id>.<Webhook-Timestamp>.<body>`, keyed with the bytes whose base64 follows `whsec_` in the secret; several signatures are separated by spaces, and any one that matches will do */
                "Webhook-Signature": string;
                /** @description What happened; the same URLs receive every type, each with a body of its own */
                "Webhook-Event-Type": "plant.created";
            };
            path?: never;
            cookie?: never;
        };
        /** @description Plant added to the store */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description Any 2xx tells the service the event was received; anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    plantUpdatedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id, the same on every attempt and for every subscriber; it is signed */
                "Webhook-Id": string;
                /** @description When this attempt was signed, in Unix seconds: refuse one too far from now (a replay) */
                "Webhook-Timestamp": bigint;
                /** @description For each key of WEBHOOK_SECRET, `v1,` and the base64 HMAC-SHA256 of `<Webhook-Id>.<Webhook-Timestamp>.<body>`, keyed with the bytes whose base64 follows `whsec_` in the secret; several signatures are separated by spaces, and any one that matches will do */
                "Webhook-Signature": string;
                /** @description What happened; the same URLs receive every type, each with a body of its own */
                "Webhook-Event-Type": "plant.updated";
            };
            path?: never;
            cookie?: never;
        };
        /** @description The plant as it is after the change (as GET /plants/{id} answers it) */
        requestBody: {
            content: {
                "application/json": components["schemas"]["NewPlant"];
            };
        };
        responses: {
            /** @description Any 2xx tells the service the event was received; anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    plantDeletedWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id, the same on every attempt and for every subscriber; it is signed */
                "Webhook-Id": string;
                /** @description When this attempt was signed, in Unix seconds: refuse one too far from now (a replay) */
                "Webhook-Timestamp": bigint;
                /** @description For each key of WEBHOOK_SECRET, `v1,` and the base64 HMAC-SHA256 of `<Webhook-Id>.<Webhook-Timestamp>.<body>`, keyed with the bytes whose base64 follows `whsec_` in the secret; several signatures are separated by spaces, and any one that matches will do */
                "Webhook-Signature": string;
                /** @description What happened; the same URLs receive every type, each with a body of its own */
                "Webhook-Event-Type": "plant.deleted";
            };
            path?: never;
            cookie?: never;
        };
        /** @description The id of the plant deleted */
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: int64
                     * @description Identification number of the plant
                     */
                    id: bigint;
                };
            };
        };
        responses: {
            /** @description Any 2xx tells the service the event was received; anything else is retried */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
