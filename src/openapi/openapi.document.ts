import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, type OpenAPIObject, SwaggerModule } from '@nestjs/swagger';

import { SCOPES } from '../auth/scopes.js';
import { isClosedSchema } from './closed-schema.decorator.js';

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '1.0.0';
export const BEARER_SCHEME_NAME = 'bearerAuth';

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
