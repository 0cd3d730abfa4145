import { Global, Module } from '@nestjs/common';

import { HttpListeners } from './http-listeners.js';
import { RoutesModule } from './routes.module.js';

@Global()
@Module({ imports: [RoutesModule], providers: [HttpListeners], exports: [HttpListeners] })
export class HttpModule {}
