import { registerAs, type ConfigType } from '@nestjs/config';

import { readEnvironment } from './environment.js';

export type { LogFormat, LogLevel, NodeEnvironment } from './environment.js';

export const appConfig = registerAs('app', () => {
  const env = readEnvironment();
  const nodeEnv = env.NODE_ENV ?? 'development';
  return {
    nodeEnv,
    isProduction: nodeEnv === 'production',
    port: env.PORT ?? 3000,
    host: env.HOST || '127.0.0.1',
    logLevel: env.LOG_LEVEL ?? 'info',
    /** JSON lines, except for a developer's terminal. */
    logFormat: env.LOG_FORMAT ?? (nodeEnv === 'development' ? 'pretty' : 'json'),
    /** How long a shutdown waits for requests in flight before cutting their connections. */
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS ?? 10_000,
  };
});

export type AppConfig = ConfigType<typeof appConfig>;
