/**
 * Generated from openapi.yaml by scripts/generate-types.js: do not edit. Regenerate it with
 * `npm run generate --workspace @plant-store/client` (or `npm run openapi`, which first rewrites openapi.yaml).
 */

/** The query parameters each operation takes as one comma-separated list (`sort=name,-id`). */
export const commaSeparated: Readonly<Record<string, readonly string[]>> = {
    "GET /plants": [
        "sort"
    ]
};
