import { isUtf8 } from 'node:buffer';

import { BadRequestException, HttpStatus, UnsupportedMediaTypeException } from '@nestjs/common';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import getRawBody from 'raw-body';
import typeIs from 'type-is';

import { HttpExceptionWithHeaders } from '../errors/error-status.js';
import type { AllowedMethods } from './allowed-methods.js';
import { JsonKeyError, JsonSyntaxError, parseJson } from './json.js';
import { parseMediaType } from './media-type.js';

export const JSON_BODY_LIMIT_BYTES = 16 * 1024;
export const JSON_MEDIA_TYPE = 'application/json';
/** JSON Merge Patch (RFC 7396): JSON, with the meaning of a patch; read as JSON on PATCH only. */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

/**
 * `application/json` bodies, and `application/merge-patch+json` on PATCH, each a JSON object; another
 * type on POST, PUT or PATCH answers 415 unread. Unlike Express's `json()`, it answers an oversized
 * body at once and closes the connection rather than read the rest, refuses bytes that are not UTF-8
 * rather than replace them, keeps every digit of large integers, and refuses prototype keys whatever
 * type a handler's `@Body()` declares (see `parseJson`).
 */
export function jsonBodyParser(routes: AllowedMethods, limit = JSON_BODY_LIMIT_BYTES): RequestHandler {
  return function parseJsonBody(request: Request, response: Response, next: NextFunction): void {
    // The usual header, exactly, needs no parsing: the rest goes through type-is and content-type.
    const plainJson = request.headers['content-type'] === JSON_MEDIA_TYPE;
    if (!typeIs.hasBody(request)) {
      next();
      return;
    }
    if (!plainJson && !typeIs(request, request.method === 'PATCH' ? PATCH_MEDIA_TYPES : JSON_MEDIA_TYPES)) {
      // An empty body is no body, whatever its declared type.
      if (request.headers['content-length'] === '0' || !READ_BODIES.has(request.method)) {
        next();
        return;
      }
      refuse(routes, request, response, next, unsupportedMediaType(request.method));
      return;
    }
    const refusal = plainJson
      ? refuseEncoded(request)
      : (refuseUnreadableCharset(request) ?? refuseEncoded(request));
    if (refusal) {
      refuse(routes, request, response, next, refusal);
      return;
    }
    getRawBody(request, { length: request.headers['content-length'], limit }, (error, buffer) => {
      if (error) {
        refuse(routes, request, response, next, readFailure(error, limit));
        return;
      }
      if (!isUtf8(buffer)) {
        refuse(routes, request, response, next, new BadRequestException('Request body is not valid UTF-8'));
        return;
      }
      let body: unknown;
      try {
        body = parseJson(buffer.toString('utf8'));
      } catch (parseError) {
        refuse(routes, request, response, next, parseFailure(parseError, buffer.length));
        return;
      }
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        refuse(
          routes,
          request,
          response,
          next,
          new BadRequestException('Request body must be a JSON object'),
        );
        return;
      }
      request.body = body;
      next();
    });
  };
}

const JSON_MEDIA_TYPES = [JSON_MEDIA_TYPE];
const PATCH_MEDIA_TYPES = [MERGE_PATCH_MEDIA_TYPE, JSON_MEDIA_TYPE];
const READ_BODIES = new Set(['POST', 'PUT', 'PATCH']);

function unsupportedMediaType(method: string): Error {
  return new UnsupportedMediaTypeException(
    method === 'PATCH'
      ? `Content-Type must be ${MERGE_PATCH_MEDIA_TYPE} or ${JSON_MEDIA_TYPE}`
      : `Content-Type must be ${JSON_MEDIA_TYPE}`,
  );
}

type RefusedBody = Error & { headers?: Readonly<Record<string, string>> };

/** Only on a route that exists: elsewhere the answer is the router's 404 or 405, whatever the body. */
function refuse(
  routes: AllowedMethods,
  request: Request,
  response: Response,
  next: NextFunction,
  error: RefusedBody,
): void {
  if (routes.for(request.path).includes(request.method)) {
    next(error);
    return;
  }
  if (error.headers?.Connection === 'close') {
    // The rest of the body was never read: the connection cannot carry another request.
    response.setHeader('Connection', 'close');
  }
  next();
}

function refuseUnreadableCharset(request: Request): Error | undefined {
  const mediaType = parseMediaType(request.headers['content-type'] ?? '');
  if (!mediaType) {
    return new UnsupportedMediaTypeException('Content-Type header is malformed');
  }
  const charset = mediaType.parameters.get('charset')?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    return new UnsupportedMediaTypeException('JSON request bodies must be encoded as UTF-8');
  }
  return undefined;
}

function refuseEncoded(request: Request): Error | undefined {
  const encoding = request.headers['content-encoding']?.toLowerCase() ?? 'identity';
  if (encoding !== 'identity') {
    return new UnsupportedMediaTypeException(
      'Compressed request bodies (Content-Encoding) are not supported',
    );
  }
  return undefined;
}

function readFailure(error: getRawBody.RawBodyError, limit: number): Error {
  if (error.type === 'entity.too.large') {
    // The rest of the body is never read: the connection goes with the answer.
    return new HttpExceptionWithHeaders(
      HttpStatus.PAYLOAD_TOO_LARGE,
      `Request body is larger than ${limit} bytes`,
      { Connection: 'close' },
    );
  }
  if (error.type === 'request.size.invalid') {
    return new BadRequestException('Request body length does not match Content-Length');
  }
  return new BadRequestException('Request body could not be read');
}

function parseFailure(error: unknown, length: number): Error {
  if (length === 0) {
    return new BadRequestException('Request body is empty; a JSON object is required');
  }
  if (error instanceof JsonKeyError) {
    return new BadRequestException(error.message);
  }
  const reason = error instanceof JsonSyntaxError ? error.message : 'unreadable JSON';
  return new BadRequestException(`Request body is not valid JSON: ${reason}`);
}
