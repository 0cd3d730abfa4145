import { Global, Module } from '@nestjs/common';
import { ClsService, ClsServiceManager } from 'nestjs-cls';

/**
 * Not `ClsModule.forRoot()`: it always registers a global guard and interceptor, and a global
 * interceptor puts Nest's RxJS pipeline on every request. The HTTP edge opens the context instead.
 */
@Global()
@Module({
  providers: [{ provide: ClsService, useFactory: () => ClsServiceManager.getClsService() }],
  exports: [ClsService],
})
export class RequestContextModule {}
