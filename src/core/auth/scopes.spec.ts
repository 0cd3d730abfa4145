import { Controller, Get, Patch, Post } from '@nestjs/common';

import { RequireScopes, requiredScopesOf } from './scopes.js';

@Controller('gardens')
@RequireScopes('gardens:admin')
class ScopedController {
  @Post(':id/adopt')
  @RequireScopes('gardens:write')
  @RequireScopes('shrubs:write', 'gardens:write')
  adopt(): void {}

  @Get()
  list(): void {}
}

@Controller('shrubs')
class UnscopedController {
  @Get()
  list(): void {}

  @Post()
  create(): void {}

  @Patch(':id')
  update(): void {}
}

describe('requiredScopesOf', () => {
  it('needs every scope named, by each @RequireScopes() on the handler', () => {
    expect(requiredScopesOf(ScopedController, ScopedController.prototype.adopt)).toStrictEqual([
      'shrubs:write',
      'gardens:write',
    ]);
  });

  it("takes the controller's where the handler names none", () => {
    expect(requiredScopesOf(ScopedController, ScopedController.prototype.list)).toStrictEqual([
      'gardens:admin',
    ]);
  });

  it("derives <resource>:read or :write from the controller's path where none is named", () => {
    expect(requiredScopesOf(UnscopedController, UnscopedController.prototype.list)).toStrictEqual([
      'shrubs:read',
    ]);
    expect(requiredScopesOf(UnscopedController, UnscopedController.prototype.create)).toStrictEqual([
      'shrubs:write',
    ]);
  });

  it('needs both for a PATCH, which answers the whole record', () => {
    expect(requiredScopesOf(UnscopedController, UnscopedController.prototype.update)).toStrictEqual([
      'shrubs:read',
      'shrubs:write',
    ]);
  });
});
