import { CLS_ID, ClsServiceManager, type ClsStore } from 'nestjs-cls';

/**
 * What the service keeps for the request being handled, in nestjs-cls's
 * AsyncLocalStorage: its id (`CLS_ID`, set by the HTTP edge) and, once the
 * bearer guard has admitted it, the principal's subject. Anything that runs
 * on the request's behalf (a service, TypeORM, the exception filter) finds it
 * there without it being passed along.
 */
export interface RequestContext extends ClsStore {
  [CLS_ID]?: string;
  principal?: string;
}

export interface RequestLogFields {
  readonly reqId?: string;
  readonly principal?: string;
}

/**
 * The fields every log line written on a request's behalf carries: pino's
 * `mixin`. A new object each time: pino merges the line's own fields into it.
 */
export function requestLogFields(): RequestLogFields {
  const store = ClsServiceManager.getClsService<RequestContext>().get();
  if (store === undefined) {
    return {};
  }
  const reqId = store[CLS_ID];
  return store.principal === undefined ? { reqId } : { reqId, principal: store.principal };
}

/** Runs `callback` as the request `reqId`'s own work: what it logs carries the id. */
export function runInRequestContext<T>(reqId: string, callback: () => T): T {
  return ClsServiceManager.getClsService<RequestContext>().runWith({ [CLS_ID]: reqId }, callback);
}

/** Records who is calling, for the rest of the request's log lines. */
export function recordPrincipal(subject: string): void {
  const cls = ClsServiceManager.getClsService<RequestContext>();
  if (cls.isActive()) {
    cls.set('principal', subject);
  }
}
