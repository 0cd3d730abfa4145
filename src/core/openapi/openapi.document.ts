import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

import { SCOPES } from '../auth/scopes.js';
import { isClosedSchema } from './closed-schema.decorator.js';

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '1.0.0';
export const BEARER_SCHEME_NAME = 'bearerAuth';

/**
 * What subscribers (WEBHOOK_URLS) receive: the OpenAPI 3.1 `webhooks` section.
 * It describes requests this service sends, not routes it serves, so no
 * controller can carry it; it refers to the emitted NewPlant schema.
 */
const NEW_PLANT_WEBHOOK: OpenAPIObject['webhooks'] = {
  'plant/webhook': {
    post: {
      operationId: 'newPlantWebhook',
      summary: 'A new plant',
      description:
        'Sent to each subscriber when a plant is stored, at least once: de-duplicate on Webhook-Id. ' +
        'Verify Webhook-Signature before trusting the body (see the README).',
      parameters: [
        {
          name: 'Webhook-Id',
          in: 'header',
          required: true,
          description: 'The event id, the same on every attempt and for every subscriber',
          schema: { type: 'string', format: 'uuid' },
        },
        {
          name: 'Webhook-Timestamp',
          in: 'header',
          required: true,
          description: 'When this attempt was signed, in Unix seconds',
          schema: { type: 'integer', format: 'int64' },
        },
        {
          name: 'Webhook-Signature',
          in: 'header',
          required: true,
          description: '`v1=` and the hex HMAC-SHA256 (key: WEBHOOK_SECRET) of `<Webhook-Timestamp>.<body>`',
          schema: { type: 'string' },
        },
      ],
      requestBody: {
        required: true,
        description: 'Plant added to the store',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/NewPlant' } } },
      },
      responses: {
        '200': { description: 'Any 2xx tells the service the event was received; anything else is retried' },
      },
      security: [],
    },
  },
};

/** The OpenAPI document, emitted from the controllers and DTOs themselves. */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setTitle('Plant Store')
    .setDescription(
      'Stores plant records. Every operation needs `Authorization: Bearer <token>` unless marked otherwise; ' +
        'every failure answers an `Error` object whose `error` is the HTTP status.',
    )
    .setVersion(API_VERSION)
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addSecurity(BEARER_SCHEME_NAME, {
      type: 'http',
      scheme: 'bearer',
      description: `Static tokens carry every scope. Scopes: ${Object.entries(SCOPES)
        .map(([scope, meaning]) => `\`${scope}\` (${meaning.toLowerCase()})`)
        .join(', ')}.`,
    })
    .addSecurityRequirements(BEARER_SCHEME_NAME)
    .addTag('plants', 'Plant records')
    .addTag('health', 'Liveness and readiness probes (no token needed)')
    .build();

  const document = SwaggerModule.createDocument(app, config);
  for (const [name, schema] of Object.entries(document.components?.schemas ?? {})) {
    if (isClosedSchema(name) && !('$ref' in schema)) {
      schema.additionalProperties = false;
    }
  }
  document.webhooks = NEW_PLANT_WEBHOOK;
  // Clients resolve paths against the address they fetched the document from.
  delete document.servers;
  if (Object.keys(document.info.contact ?? {}).length === 0) {
    delete document.info.contact;
  }
  return document;
}

/** Serves the document as `/openapi.json` and `/openapi.yaml`, and the Swagger UI at `/docs`. */
export function setUpOpenApi(app: INestApplication): void {
  SwaggerModule.setup('docs', app, () => buildOpenApiDocument(app), {
    jsonDocumentUrl: 'openapi.json',
    yamlDocumentUrl: 'openapi.yaml',
    customSiteTitle: 'Plant Store API',
    swaggerOptions: { persistAuthorization: true, tryItOutEnabled: false },
  });
}
