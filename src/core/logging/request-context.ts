import { CLS_ID, ClsServiceManager, type ClsStore } from 'nestjs-cls';

/**
 * The request's id (set by the HTTP edge) and, once admitted, its principal: whatever runs on the
 * request's behalf (a service, TypeORM, the exception filter) finds them without their being passed.
 */
export interface RequestContext extends ClsStore {
  [CLS_ID]?: string;
  principal?: string;
  /** The principal's issuer, for a JWT's. */
  issuer?: string;
}

export interface RequestLogFields {
  readonly reqId?: string;
  readonly principal?: string;
}

/** pino's `mixin`: a new object each time, as pino merges the line's own fields into it. */
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

/** Records who is calling, for the rest of the request's log lines and the changes it makes. */
export function recordPrincipal(subject: string, issuer?: string): void {
  // The store itself: `set()` would read it again and parse the key as a path.
  const store = ClsServiceManager.getClsService<RequestContext>().get();
  if (store !== undefined) {
    store.principal = subject;
    if (issuer !== undefined) {
      store.issuer = issuer;
    }
  }
}

/** The request being served, as far as its context tells: its id and who made it. */
export function currentRequest(): Readonly<RequestContext> | undefined {
  return ClsServiceManager.getClsService<RequestContext>().get();
}
