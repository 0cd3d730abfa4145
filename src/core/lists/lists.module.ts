import { Global, Module } from '@nestjs/common';

import { ListPages } from './list-pages.js';

/** Declared lists' pages and counts (`ListPages`), for any resource. */
@Global()
@Module({
  providers: [ListPages],
  exports: [ListPages],
})
export class ListsModule {}
