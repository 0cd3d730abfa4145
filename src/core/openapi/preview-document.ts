import { NestFactory } from '@nestjs/core';
import type { OpenAPIObject } from '@nestjs/swagger';

import { AppModule } from '../../app.module.js';
import { buildOpenApiDocument } from './openapi.document.js';

/**
 * The OpenAPI document the application emits, built in Nest's preview mode,
 * which reads the controllers' metadata without starting any provider: no
 * database or token is needed.
 */
export async function previewOpenApiDocument(): Promise<OpenAPIObject> {
  const app = await NestFactory.create(AppModule, { preview: true, logger: false, abortOnError: false });
  try {
    return buildOpenApiDocument(app);
  } finally {
    await app.close();
  }
}
