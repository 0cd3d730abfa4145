import { type Span, SpanStatusCode } from '@opentelemetry/api';

import { tracer } from './tracer.js';

type Handler = (...args: unknown[]) => unknown;

/**
 * Spans for each request's guards and for its handler (with the pipes that
 * validate its arguments), named after the controller's method:
 * `PlantsController.create guards`, `PlantsController.create`.
 *
 * OpenTelemetry's Nest instrumentation does not support Nest 12 (and would
 * record the URL with its query string). Nest runs every route's guards and
 * handler through these two methods of its own, which are wrapped instead, on
 * their prototypes, once, before the application is made.
 */
export async function traceNestHandlers(): Promise<void> {
  const [{ GuardsConsumer }, { InterceptorsConsumer }] = await Promise.all([
    import('@nestjs/core/guards/guards-consumer.js'),
    import('@nestjs/core/interceptors/interceptors-consumer.js'),
  ]);

  wrap(
    GuardsConsumer.prototype,
    'tryActivate',
    (tryActivate) =>
      function (this: unknown, guards, args, instance, callback, type) {
        if (guards.length === 0) {
          return tryActivate.call(this, guards, args, instance, callback, type);
        }
        const name = handlerName(instance, callback);
        return tracer.startActiveSpan(
          `${name} guards`,
          { attributes: { 'code.function.name': name } },
          (span) => settle(span, tryActivate.call(this, guards, args, instance, callback, type)),
        );
      },
  );

  wrap(
    InterceptorsConsumer.prototype,
    'intercept',
    (intercept) =>
      function (this: unknown, interceptors, args, instance, callback, next, type) {
        const name = handlerName(instance, callback);
        const traced = () =>
          tracer.startActiveSpan(name, { attributes: { 'code.function.name': name } }, (span) =>
            settle(span, next()),
          );
        return intercept.call(this, interceptors, args, instance, callback, traced, type);
      },
  );
}

/** Replaces a method of a prototype with a wrapper of it. */
function wrap<T, K extends keyof T>(prototype: T, method: K, wrapper: (original: T[K]) => T[K]): void {
  prototype[method] = wrapper(prototype[method]);
}

function handlerName(instance: object, callback: Handler): string {
  return `${instance.constructor.name}.${callback.name}`;
}

/**
 * Ends the span when the work settles. A failure is marked with its class
 * only: an exception's message may quote the request.
 */
function settle<T>(span: Span, work: Promise<T>): Promise<T> {
  return work.then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.setAttribute('error.type', error instanceof Error ? error.constructor.name : typeof error);
      span.end();
      throw error;
    },
  );
}
