import { Global, Module } from '@nestjs/common';
import { ClsService, ClsServiceManager } from 'nestjs-cls';

/**
 * nestjs-cls's `ClsService` for injection: the request's context, which the
 * HTTP edge opens (see `runInRequestContext`). Not `ClsModule.forRoot()`: it
 * always registers a global guard and a global interceptor, no-ops unless
 * told to mount, and a global interceptor puts Nest's RxJS pipeline on every
 * request, which costs more than the request's own work on the fast routes.
 */
@Global()
@Module({
  providers: [{ provide: ClsService, useFactory: () => ClsServiceManager.getClsService() }],
  exports: [ClsService],
})
export class RequestContextModule {}
