import { Global, Module } from '@nestjs/common';

import { PinoNestLogger } from './pino-nest-logger.js';
import { getRootLogger, ROOT_LOGGER } from './root-logger.js';

@Global()
@Module({
  providers: [{ provide: ROOT_LOGGER, useFactory: getRootLogger }, PinoNestLogger],
  exports: [ROOT_LOGGER, PinoNestLogger],
})
export class LoggingModule {}
