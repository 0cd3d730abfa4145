import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { context as otelContext, type Span, SpanStatusCode, trace } from '@opentelemetry/api';
import { Observable } from 'rxjs';

import { tracer } from './tracer.js';

/** Spans a handler and its pipes as `PlantsController.create`; registered only when tracing is on. */
@Injectable()
export class HandlerSpanInterceptor implements NestInterceptor {
  intercept(execution: ExecutionContext, next: CallHandler): Observable<unknown> {
    const name = `${execution.getClass().name}.${execution.getHandler().name}`;
    return new Observable((subscriber) => {
      const span = tracer.startSpan(name, { attributes: { 'code.function.name': name } });
      const subscription = otelContext.with(trace.setSpan(otelContext.active(), span), () =>
        next.handle().subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            fail(span, error);
            subscriber.error(error);
          },
          complete: () => {
            span.end();
            subscriber.complete();
          },
        }),
      );
      return () => subscription.unsubscribe();
    });
  }
}

/** Marked with the failure's class only: an exception's message may quote the request. */
function fail(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', error instanceof Error ? error.constructor.name : typeof error);
  span.end();
}
