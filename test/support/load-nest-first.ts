/**
 * Evaluates NestJS (native ES modules) before any test module loads.
 * `@nestjs/throttler` is CommonJS and `require()`s `@nestjs/common` and
 * `@nestjs/core`; Node's `require(esm)` refuses a module that is still being
 * linked in the same import graph, which is what they would otherwise be when
 * the application's graph reaches the throttler.
 */
import '@nestjs/common';
import '@nestjs/core';
