import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants.js';
import { MetadataScanner, ModulesContainer } from '@nestjs/core';
import type { INestApplication } from '@nestjs/common';

/**
 * Every route the application's controllers declare, as `METHOD /path`, read
 * from their metadata (what `@Controller()`, `@Get()`, `@Post()`, … record):
 * the same source Nest's router is built from, whatever gets logged.
 */
export function declaredRoutes(app: INestApplication): string[] {
  const scanner = new MetadataScanner();
  const routes = new Set<string>();
  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller) {
        continue;
      }
      const prefixes = pathsOf(Reflect.getMetadata(PATH_METADATA, controller));
      for (const name of scanner.getAllMethodNames(controller.prototype)) {
        const handler = (controller.prototype as Record<string, unknown>)[name] as object;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) {
          continue;
        }
        for (const prefix of prefixes) {
          for (const path of pathsOf(Reflect.getMetadata(PATH_METADATA, handler))) {
            routes.add(`${RequestMethod[method]} ${joinPaths(prefix, path)}`);
          }
        }
      }
    }
  }
  return [...routes].sort();
}

function pathsOf(metadata: unknown): string[] {
  if (Array.isArray(metadata)) {
    return metadata.map(String);
  }
  return [typeof metadata === 'string' ? metadata : '/'];
}

function joinPaths(prefix: string, path: string): string {
  const joined = `/${[prefix, path]
    .map((part) => part.replace(/^\/+|\/+$/g, ''))
    .filter(Boolean)
    .join('/')}`;
  return joined;
}
