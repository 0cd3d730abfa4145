import type { Server } from 'node:http';

import type { NestExpressApplication } from '@nestjs/platform-express';
import { DataSource } from 'typeorm';

import { createApp } from '../../src/app.setup.js';

export interface TestApp {
  readonly app: NestExpressApplication;
  readonly server: Server;
  readonly db: DataSource;
}

/**
 * Boots the real application, exactly as `main.ts` does, on the test
 * database. `env` overrides variables for this app only.
 */
export async function startTestApp(env: Record<string, string | undefined> = {}): Promise<TestApp> {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  try {
    const app = await createApp();
    await app.init();
    return { app, server: app.getHttpServer(), db: app.get(DataSource) };
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) {
        delete process.env[key];
      } else {
        process.env[key] = value;
      }
    }
  }
}
