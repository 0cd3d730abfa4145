import 'reflect-metadata';

import { writeFile } from 'node:fs/promises';

import { NestFactory } from '@nestjs/core';
import { dump } from 'js-yaml';

import { AppModule } from '../../app.module.js';
import { buildOpenApiDocument } from './openapi.document.js';

export const OPENAPI_FILE = 'openapi.yaml';

/**
 * Writes the emitted OpenAPI document to `openapi.yaml` (`npm run openapi`).
 * Nest's preview mode reads the controllers' metadata without starting any
 * provider, so no database or token is needed.
 */
async function writeOpenApi(): Promise<void> {
  const app = await NestFactory.create(AppModule, { preview: true, logger: false, abortOnError: false });
  const document = buildOpenApiDocument(app);
  await writeFile(OPENAPI_FILE, dump(document, { noRefs: true, lineWidth: 120 }));
  await app.close();
  process.stdout.write(`Wrote ${OPENAPI_FILE}\n`);
}

await writeOpenApi();
