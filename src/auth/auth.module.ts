import { createHash } from 'node:crypto';

import { Module } from '@nestjs/common';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { InvalidConfigurationError } from '../config/configuration-error.js';
import { AccessTokenVerifier } from './access-token.verifier.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { DEV_TOKEN, loadOrCreateDevToken } from './dev-token.js';
import { StaticTokenVerifier } from './static-token.verifier.js';

@Module({
  providers: [
    {
      provide: DEV_TOKEN,
      inject: [authConfig.KEY, appConfig.KEY],
      useFactory: async (auth: AuthConfig, app: AppConfig): Promise<string | undefined> => {
        if (auth.staticTokens.length > 0) {
          return undefined;
        }
        if (app.isProduction) {
          // Fail closed: a production instance nobody can authenticate to is a misconfiguration.
          throw new InvalidConfigurationError(
            'Invalid configuration: NODE_ENV=production needs AUTH_TOKENS; refusing to start without a way to authenticate',
          );
        }
        return loadOrCreateDevToken();
      },
    },
    {
      provide: AccessTokenVerifier,
      inject: [authConfig.KEY, DEV_TOKEN],
      useFactory: (auth: AuthConfig, devToken: string | undefined) => {
        const digests = devToken
          ? [{ sha256: createHash('sha256').update(devToken).digest() }]
          : auth.staticTokens;
        return new AccessTokenVerifier(new StaticTokenVerifier(digests));
      },
    },
    BearerAuthGuard,
  ],
  exports: [AccessTokenVerifier, BearerAuthGuard, DEV_TOKEN],
})
export class AuthModule {}
