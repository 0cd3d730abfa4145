import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';

import { AppModule } from '../../app.module.js';
import { buildOpenApiDocument, DEFAULT_SERVER, type PublicServer } from './openapi.document.js';

/**
 * The OpenAPI document the application emits, built in Nest's preview mode,
 * which reads the controllers' metadata without starting any provider: no
 * database or token is needed. Its server is the default one unless given.
 */
export async function previewOpenApiDocument(server: PublicServer = DEFAULT_SERVER): Promise<OpenAPIObject> {
  const app = await NestFactory.create(AppModule, { preview: true, logger: false, abortOnError: false });
  try {
    return buildOpenApiDocument(app, server);
  } finally {
    await app.close();
  }
}
