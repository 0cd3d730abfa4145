import { Logger } from '@nestjs/common';

import type { AppConfig } from '../config/app.config.js';
import type { DatabaseConfig } from '../config/database.config.js';
import { InvalidConfigurationError } from '../config/configuration-error.js';
import { EmbeddedPostgres } from './embedded-postgres.js';

export const EMBEDDED_DATABASE_NAME = 'plant_store';

/** `DATABASE_URL`, or else an embedded PostgreSQL that this process starts and stops. */
export class DatabaseServer {
  private static readonly logger = new Logger('Database');

  private constructor(
    readonly url: string,
    private readonly embedded?: EmbeddedPostgres,
  ) {}

  static async resolve(database: DatabaseConfig, app: AppConfig): Promise<DatabaseServer> {
    if (database.url) {
      return new DatabaseServer(database.url);
    }
    if (app.isProduction) {
      // Refused with the rest of the configuration already; kept so that no path can slip through.
      throw new InvalidConfigurationError('NODE_ENV=production needs DATABASE_URL');
    }
    const embedded = await EmbeddedPostgres.start({
      dataDir: database.embeddedDataDir,
      database: EMBEDDED_DATABASE_NAME,
      log: DatabaseServer.logger,
    });
    return new DatabaseServer(embedded.url, embedded);
  }

  /** Stops the embedded server, if there is one; a server named by `DATABASE_URL` is not ours to stop. */
  async stop(): Promise<void> {
    await this.embedded?.stop();
  }
}
