import { Global, Module } from '@nestjs/common';
import { DiscoveryModule, InitializeOnPreviewAllowlist } from '@nestjs/core';

import { AllowedMethods } from './allowed-methods.js';
import { DeclaredRoutes } from './declared-routes.js';

/** The routes the controllers declare, and the methods each path allows, read once for the application. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [DeclaredRoutes, AllowedMethods],
  exports: [DeclaredRoutes, AllowedMethods],
})
export class RoutesModule {}

// The OpenAPI document is built in Nest's preview mode too (preview-document.ts), where a
// provider starts only if its module is on this list.
InitializeOnPreviewAllowlist.add(DiscoveryModule);
InitializeOnPreviewAllowlist.add(RoutesModule);
