import {
  BadRequestException,
  createParamDecorator,
  type ExecutionContext,
  UnsupportedMediaTypeException,
} from '@nestjs/common';
import type { Request } from 'express';
import typeIs from 'type-is';

import { JSON_MEDIA_TYPE } from './json-body.parser.js';

/**
 * The parsed JSON body of a route that requires one. A body of another media
 * type answers 415, a missing body 400; the global validation pipe then checks
 * the body against the parameter's DTO class.
 */
export const JsonBody = createParamDecorator((_data: unknown, context: ExecutionContext): unknown => {
  const request = context.switchToHttp().getRequest<Request>();
  if (request.body !== undefined) {
    return request.body;
  }
  const sentBody = typeIs.hasBody(request) && request.headers['content-length'] !== '0';
  if (sentBody && !typeIs(request, [JSON_MEDIA_TYPE])) {
    throw new UnsupportedMediaTypeException(`Content-Type must be ${JSON_MEDIA_TYPE}`);
  }
  throw new BadRequestException('A JSON request body is required');
});
