import { Global, Module } from '@nestjs/common';

import { appConfig, type AppConfig } from '../config/app.config.js';
import { PinoNestLogger } from './pino-nest-logger.js';
import { createRootLogger, ROOT_LOGGER } from './root-logger.js';

@Global()
@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [appConfig.KEY],
      useFactory: (app: AppConfig) =>
        createRootLogger({ level: app.logLevel, pretty: app.logFormat === 'pretty' }),
    },
    PinoNestLogger,
  ],
  exports: [ROOT_LOGGER, PinoNestLogger],
})
export class LoggingModule {}
