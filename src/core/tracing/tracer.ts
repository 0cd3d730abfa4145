import { trace } from '@opentelemetry/api';

/** With tracing off no tracer provider is registered, and every span it starts is a no-op. */
export const tracer = trace.getTracer('plant-store');
