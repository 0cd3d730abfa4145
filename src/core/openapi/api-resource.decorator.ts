import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';

export const API_TAG_DESCRIPTION_KEY = 'openapi:tagDescription';

/**
 * The OpenAPI tag of a controller's operations, with what the tag is about:
 * the document lists every controller's tag, so a new resource brings its own.
 */
export function ApiResource(name: string, description: string): ClassDecorator {
  return applyDecorators(ApiTags(name), SetMetadata(API_TAG_DESCRIPTION_KEY, { name, description }));
}
