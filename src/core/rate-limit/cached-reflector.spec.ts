import { SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';

import { CachedReflector } from './cached-reflector.js';

@SetMetadata('limit', 10)
class PlantsController {
  @SetMetadata('limit', 5)
  create(): void {}

  list(): void {}
}

describe('CachedReflector', () => {
  const handlers = [PlantsController.prototype.create, PlantsController.prototype.list];

  it('answers as Reflector does: the handler first, then its controller', () => {
    const cached = new CachedReflector();
    const plain = new Reflector();

    for (const handler of handlers) {
      for (const key of ['limit', 'ttl']) {
        const targets = [handler, PlantsController];
        expect(cached.getAllAndOverride(key, targets)).toBe(plain.getAllAndOverride(key, targets));
      }
    }
    expect(cached.getAllAndOverride('limit', [handlers[0], PlantsController])).toBe(5);
    expect(cached.getAllAndOverride('limit', [handlers[1], PlantsController])).toBe(10);
    expect(cached.getAllAndOverride('ttl', [handlers[1], PlantsController])).toBeUndefined();
  });

  it('reads a route’s metadata once, and passes other lookups through', () => {
    class Controller {
      handle(): void {}
    }
    const reflector = new CachedReflector();
    const targets = [Controller.prototype.handle, Controller];
    expect(reflector.getAllAndOverride('skip', targets)).toBeUndefined();

    Reflect.defineMetadata('skip', true, Controller.prototype.handle);

    expect(reflector.getAllAndOverride('skip', targets)).toBeUndefined();
    expect(reflector.getAllAndOverride('skip', [Controller.prototype.handle])).toBe(true);
  });
});
