import { Global, Module } from '@nestjs/common';

import { HttpListeners } from './http-listeners.js';

@Global()
@Module({ providers: [HttpListeners], exports: [HttpListeners] })
export class HttpModule {}
