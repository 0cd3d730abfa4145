import type { ExecutionContext, Type } from '@nestjs/common';

/** The context a guard is given for an HTTP request to `controller`'s `handler`, as Nest makes it. */
export function httpContext(
  request: object,
  controller: Type,
  handler: object,
  response: object = {},
): ExecutionContext {
  const args = [request, response, () => undefined];
  const http = { getRequest: () => request, getResponse: () => args[1], getNext: () => args[2] };
  return {
    getClass: () => controller,
    getHandler: () => handler,
    getArgs: () => args,
    getArgByIndex: (index: number) => args[index],
    getType: () => 'http',
    switchToHttp: () => http,
    switchToRpc: () => {
      throw new Error('not an RPC context');
    },
    switchToWs: () => {
      throw new Error('not a WebSocket context');
    },
  } as ExecutionContext;
}
