/**
 * Generated from openapi.yaml by scripts/generate-types.js: do not edit. Regenerate it with
 * `npm run generate --workspace @plant-store/client` (or `npm run openapi`, which first rewrites openapi.yaml).
 */

import type { Int64Shape } from '../json.js';

/** Where each schema of `components.schemas` holds int64s (those that hold none are left out). */
export const schemas: Readonly<Record<string, Int64Shape>> = {
    "AuditEvent": {
        "properties": {
            "id": "int64"
        }
    },
    "NewPlant": {
        "properties": {
            "id": "int64"
        }
    },
    "PlantPatch": {
        "properties": {
            "id": "int64"
        }
    }
};

/** Where the JSON answers hold int64s, by operation (`GET /plants/{id}`) and status. */
export const responses: Readonly<Record<string, Readonly<Record<string, Int64Shape>>>> = {
    "GET /audit-events": {
        "200": {
            "items": {
                "ref": "AuditEvent"
            }
        }
    },
    "GET /plants": {
        "200": {
            "items": {
                "ref": "NewPlant"
            }
        }
    },
    "GET /plants/{id}": {
        "200": {
            "ref": "NewPlant"
        }
    },
    "PATCH /plants/{id}": {
        "200": {
            "ref": "NewPlant"
        }
    }
};

/** Where each webhook's JSON body holds int64s. */
export const webhooks: Readonly<Record<string, Int64Shape>> = {
    "plant/webhook": {
        "ref": "NewPlant"
    },
    "plant/updated": {
        "ref": "NewPlant"
    },
    "plant/deleted": {
        "properties": {
            "id": "int64"
        }
    }
};
