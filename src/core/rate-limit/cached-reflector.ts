import type { Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

/**
 * A Reflector that reads a route's metadata once. `@nestjs/throttler`'s guard
 * asks for five metadata keys of the handler and its controller, per
 * throttler, on every request; route metadata is written by decorators when
 * the classes are defined and does not change afterwards, so each answer is
 * kept per handler and controller. Lookups with other targets than that pair
 * are passed through as they are.
 */
export class CachedReflector extends Reflector {
  private readonly answers = new WeakMap<object, WeakMap<object, Map<unknown, unknown>>>();

  override getAllAndOverride<TResult = unknown, TKey = unknown>(
    metadataKey: TKey,
    targets: (Type | ((...args: never[]) => unknown))[],
  ): TResult {
    const [handler, controller] = targets;
    if (targets.length !== 2 || !handler || !controller) {
      return super.getAllAndOverride<TResult, TKey>(metadataKey, targets);
    }
    let byController = this.answers.get(handler);
    if (!byController) {
      byController = new WeakMap();
      this.answers.set(handler, byController);
    }
    let byKey = byController.get(controller);
    if (!byKey) {
      byKey = new Map();
      byController.set(controller, byKey);
    }
    if (!byKey.has(metadataKey)) {
      byKey.set(metadataKey, super.getAllAndOverride<TResult, TKey>(metadataKey, targets));
    }
    return byKey.get(metadataKey) as TResult;
  }
}
