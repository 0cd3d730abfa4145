import { All, Controller, Delete, Get, Module, Patch, Post } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';

import { DeclaredRoutes } from './declared-routes.js';

@Controller(['gardens', '/beds/'])
class GardensController {
  @Get()
  list(): void {}

  @Post(':id/adopt')
  adopt(): void {}

  @Patch([':id', ':id/rename'])
  rename(): void {}

  /** Not a route: no routing decorator. */
  helper(): void {}
}

@Controller()
class RootController {
  @All('ping')
  ping(): void {}
}

class BaseController {
  @Delete(':id')
  remove(): void {}
}

@Controller('shrubs')
class ShrubsController extends BaseController {}

@Module({ controllers: [ShrubsController] })
class ShrubsModule {}

describe('DeclaredRoutes', () => {
  it("reads each route as Nest's decorators declare it, in every module, inherited handlers too", async () => {
    const app = await Test.createTestingModule({
      imports: [DiscoveryModule, ShrubsModule],
      controllers: [GardensController, RootController],
      providers: [DeclaredRoutes],
    }).compile();

    const routes = app.get(DeclaredRoutes).all();

    expect(routes.map(({ method, path }) => `${method} ${path}`).sort()).toStrictEqual([
      'ALL /ping',
      'DELETE /shrubs/:id',
      'GET /beds',
      'GET /gardens',
      'PATCH /beds/:id',
      'PATCH /beds/:id/rename',
      'PATCH /gardens/:id',
      'PATCH /gardens/:id/rename',
      'POST /beds/:id/adopt',
      'POST /gardens/:id/adopt',
    ]);
    expect(routes.find(({ path }) => path === '/gardens/:id/adopt')).toMatchObject({
      controller: GardensController,
      handler: GardensController.prototype.adopt,
    });
  });
});
