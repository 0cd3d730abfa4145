import { createHash } from 'node:crypto';

import { Module } from '@nestjs/common';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { authConfig, type AuthConfig } from '../config/auth.config.js';
import { RateLimitStorageModule } from '../rate-limit/rate-limit-storage.module.js';
import { AccessTokenVerifier } from './access-token.verifier.js';
import { AuthFailureLimiter } from './auth-failure.limiter.js';
import { BearerAuthGuard } from './bearer-auth.guard.js';
import { DEV_TOKEN, loadOrCreateDevToken } from './dev-token.js';
import { JwtVerifier } from './jwt.verifier.js';
import { StaticTokenVerifier } from './static-token.verifier.js';

@Module({
  // The lockout counts failed authentications in the rate limits' counters.
  imports: [RateLimitStorageModule],
  providers: [
    {
      provide: DEV_TOKEN,
      inject: [authConfig.KEY, appConfig.KEY],
      useFactory: async (auth: AuthConfig, app: AppConfig): Promise<string | undefined> =>
        // Production without tokens never gets here: the configuration is refused first.
        auth.staticTokens.length > 0 || auth.jwt || app.isProduction ? undefined : loadOrCreateDevToken(),
    },
    {
      provide: AccessTokenVerifier,
      inject: [authConfig.KEY, DEV_TOKEN],
      useFactory: (auth: AuthConfig, devToken: string | undefined) => {
        const digests = devToken
          ? [{ sha256: createHash('sha256').update(devToken).digest() }]
          : auth.staticTokens;
        return new AccessTokenVerifier(
          new StaticTokenVerifier(digests),
          auth.jwt ? new JwtVerifier(auth.jwt) : undefined,
        );
      },
    },
    AuthFailureLimiter,
    BearerAuthGuard,
  ],
  exports: [AccessTokenVerifier, BearerAuthGuard, DEV_TOKEN],
})
export class AuthModule {}
