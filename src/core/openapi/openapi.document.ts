import { HttpStatus, type INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ParameterObject,
  type PathItemObject,
  type ReferenceObject,
  type RequestBodyObject,
  type ResponsesObject,
  type SchemaObject,
  SwaggerModule,
} from '@nestjs/swagger';
import type { Response } from 'express';
import { parse, type Token } from 'path-to-regexp';

import { BearerChallenge } from '../auth/bearer-challenge.js';
import { IS_PUBLIC_KEY } from '../auth/public.decorator.js';
import { requiredScopesOf, type Scope } from '../auth/scopes.js';
import { appConfig, type AppConfig, type NodeEnvironment } from '../config/app.config.js';
import { httpConfig, HttpEnvironment, publicUrlOf, type HttpConfig } from '../config/http.config.js';
import { MAX_WEBHOOK_KEYS } from '../config/webhook.config.js';
import { errorResponseObject, GUARDED_ERROR_STATUSES } from '../errors/api-error-responses.decorator.js';
import { ErrorDto } from '../errors/error.dto.js';
import { DeclaredRoutes } from '../http/declared-routes.js';
import { API_TAG_DESCRIPTION_KEY } from './api-resource.decorator.js';
import { ETAG_HEADER, ETAG_RESPONSE_KEY, LAST_MODIFIED_HEADER } from './conditional.decorator.js';
import { boundIntegers } from './integer-bounds.js';
import { openApiYaml } from './openapi-yaml.js';
import { documentPlatformHeaders, type OperationAccess } from './response-headers.js';

export const OPENAPI_VERSION = '3.1.0';
export const API_VERSION = '1.0.0';
export const BEARER_SCHEME_NAME = 'bearerAuth';

export interface PublicServer {
  readonly url: string;
  readonly environment: NodeEnvironment;
}

/** The committed document's server: the defaults, so that `npm run openapi` writes the same file anywhere. */
export const DEFAULT_SERVER: PublicServer = {
  url: publicUrlOf(new HttpEnvironment().PUBLIC_URL),
  environment: 'development',
};

/** How a server's description names its environment, in words tools recognise. */
const ENVIRONMENT_WORDS: Readonly<Record<NodeEnvironment, string>> = {
  development: 'local development',
  test: 'test',
  production: 'production',
};

const UUID_LENGTH = 36;
/** `v1,` and the base64 of an HMAC-SHA256, one per key, separated by spaces. */
const SIGNATURE_LENGTH = 'v1,'.length + 44;
/** The latest time a JavaScript Date holds, in Unix seconds. */
const MAX_UNIX_SECONDS = 8_640_000_000_000;

/** The Standard Webhooks headers of every delivery (https://www.standardwebhooks.com). */
function webhookHeaders(eventType: string): ParameterObject[] {
  return [
    {
      name: 'Webhook-Id',
      in: 'header',
      required: true,
      description: 'The event id, the same on every attempt and for every subscriber; it is signed',
      schema: { type: 'string', format: 'uuid', minLength: UUID_LENGTH, maxLength: UUID_LENGTH },
    },
    {
      name: 'Webhook-Timestamp',
      in: 'header',
      required: true,
      description: 'When this attempt was signed, in Unix seconds: refuse one too far from now (a replay)',
      schema: { type: 'integer', format: 'int64', minimum: 0, maximum: MAX_UNIX_SECONDS },
    },
    {
      name: 'Webhook-Signature',
      in: 'header',
      required: true,
      description:
        'For each key of WEBHOOK_SECRET, `v1,` and the base64 HMAC-SHA256 of ' +
        '`<Webhook-Id>.<Webhook-Timestamp>.<body>`, keyed with the bytes whose base64 follows `whsec_` ' +
        'in the secret; several signatures are separated by spaces, and any one that matches will do',
      schema: {
        type: 'string',
        minLength: SIGNATURE_LENGTH,
        maxLength: MAX_WEBHOOK_KEYS * (SIGNATURE_LENGTH + 1) - 1,
        pattern: '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$',
        examples: ['v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4='],
      },
    },
    {
      name: 'Webhook-Event-Type',
      in: 'header',
      required: true,
      description: 'What happened; the same URLs receive every type, each with a body of its own',
      schema: { type: 'string', enum: [eventType] },
    },
  ];
}

function webhook(
  operationId: string,
  eventType: string,
  summary: string,
  body: { description: string; schema: SchemaObject | ReferenceObject },
): PathItemObject {
  return {
    post: {
      operationId,
      summary,
      description:
        `Sent to each subscriber as \`${eventType}\`, at least once: de-duplicate on Webhook-Id. Signed as ` +
        'the Standard Webhooks specification says: verify Webhook-Signature with any of its libraries (or ' +
        'as docs/webhooks.md shows) before trusting the body.',
      parameters: webhookHeaders(eventType),
      requestBody: {
        required: true,
        description: body.description,
        content: { 'application/json': { schema: body.schema } },
      },
      responses: {
        '200': { description: 'Any 2xx tells the service the event was received; anything else is retried' },
      },
      security: [],
    },
  };
}

/** The `webhooks` section: requests this service sends, not serves, which no controller can describe. */
const PLANT_WEBHOOKS: OpenAPIObject['webhooks'] = {
  'plant/webhook': webhook('newPlantWebhook', 'plant.created', 'A new plant', {
    description: 'Plant added to the store',
    schema: { $ref: '#/components/schemas/NewPlant' },
  }),
  'plant/updated': webhook('plantUpdatedWebhook', 'plant.updated', 'A plant changed', {
    description: 'The plant as it is after the change (as GET /plants/{id} answers it)',
    schema: { $ref: '#/components/schemas/NewPlant' },
  }),
  'plant/deleted': webhook('plantDeletedWebhook', 'plant.deleted', 'A plant deleted', {
    description: 'The id of the plant deleted',
    schema: {
      type: 'object',
      required: ['id'],
      properties: {
        id: { type: 'integer', format: 'int64', description: 'Identification number of the plant' },
      },
    },
  }),
};

/** The OpenAPI document, emitted from the controllers and DTOs themselves. */
export function buildOpenApiDocument(app: INestApplication, server = DEFAULT_SERVER): OpenAPIObject {
  const routes = inventory(app);
  const builder = new DocumentBuilder()
    .setOpenAPIVersion(OPENAPI_VERSION)
    .setTitle('Plant Store')
    .setDescription(
      'Stores plant records. Every operation needs `Authorization: Bearer <token>` unless marked otherwise; ' +
        'every failure answers an `Error` object whose `error` is the HTTP status.',
    )
    .setVersion(API_VERSION)
    .setLicense('MIT', 'https://opensource.org/licenses/MIT')
    .addServer(server.url, `The Plant Store at PUBLIC_URL (${ENVIRONMENT_WORDS[server.environment]})`)
    .addSecurity(BEARER_SCHEME_NAME, {
      type: 'http',
      scheme: 'bearer',
      description:
        'Static tokens carry every scope. A JWT needs `<resource>:read` to read, `<resource>:write` for ' +
        'anything else, and both for a PATCH, which answers the whole record. Scopes:' +
        ` ${[...routes.scopes].map((scope) => `\`${scope}\``).join(', ')}.`,
    })
    .addSecurityRequirements(BEARER_SCHEME_NAME);
  for (const { name, description } of routes.tags) {
    builder.addTag(name, description);
  }
  const config = builder.build();

  // A copy (of plain JSON): what follows adds to schemas that may be the decorators' own objects.
  const document = jsonCopy(SwaggerModule.createDocument(app, config, { extraModels: [ErrorDto] }));
  documentPlatformErrors(document, routes.guarded);
  documentEntityTags(document, routes.tagged);
  documentPlatformHeaders(document, accessByOperation(routes.guarded));
  closeRequestBodies(document);
  document.webhooks = jsonCopy(PLANT_WEBHOOKS);
  boundIntegers(document);
  // Public: the document is meant for every client (OWASP's inventory rule asks each server to say so).
  document.servers = document.servers?.map((entry) => ({ ...entry, 'x-internal': false }));
  if (Object.keys(document.info.contact ?? {}).length === 0) {
    delete document.info.contact;
  }
  return document;
}

/**
 * Serves `/openapi.json` and `/openapi.yaml` with this instance's PUBLIC_URL as server, and the
 * Swagger UI at `/docs`, whose calls go to the page's own origin first, whatever PUBLIC_URL says.
 */
export function setUpOpenApi(app: INestApplication): void {
  const server: PublicServer = {
    url: app.get<HttpConfig>(httpConfig.KEY).publicUrl,
    environment: app.get<AppConfig>(appConfig.KEY).nodeEnv,
  };
  let document: OpenAPIObject | undefined;
  const built = () => (document ??= buildOpenApiDocument(app, server));
  SwaggerModule.setup('docs', app, () => forThisPage(built()), {
    raw: false,
    customSiteTitle: 'Plant Store API',
    swaggerOptions: { persistAuthorization: true, tryItOutEnabled: false },
  });
  const adapter = app.getHttpAdapter();
  let json: string | undefined;
  let yaml: string | undefined;
  adapter.get('/openapi.json', (_request: unknown, response: Response) => {
    response.type('application/json').send((json ??= JSON.stringify(built())));
  });
  adapter.get('/openapi.yaml', (_request: unknown, response: Response) => {
    response.type('text/yaml').send((yaml ??= openApiYaml(built())));
  });
}

function forThisPage(document: OpenAPIObject): OpenAPIObject {
  return {
    ...document,
    servers: [
      { url: '/', description: 'The instance that serves this page (local, test or production)' },
      ...(document.servers ?? []),
    ],
  };
}

function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/**
 * `additionalProperties: false` on every request body's schema: the `ValidationPipe` refuses the
 * properties a DTO does not declare (400).
 */
function closeRequestBodies(document: OpenAPIObject): void {
  const schemas = document.components?.schemas ?? {};
  for (const pathItem of Object.values(document.paths)) {
    for (const operation of Object.values(pathItem as Record<string, OperationObject | undefined>)) {
      const body = operation?.requestBody as RequestBodyObject | undefined;
      for (const { schema } of Object.values(body?.content ?? {})) {
        const closed = schema && '$ref' in schema ? schemas[schema.$ref.split('/').pop()!] : undefined;
        if (closed && !('$ref' in closed)) {
          closed.additionalProperties = false;
        }
      }
    }
  }
}

function accessByOperation(
  guarded: readonly GuardedRoute[],
): (path: string, method: string) => OperationAccess {
  const byOperation = new Map<string, OperationAccess>();
  for (const route of guarded) {
    for (const method of documentedMethods(route)) {
      byOperation.set(`${method} ${openApiPath(route.path)}`, { guarded: true, scopes: route.scopes });
    }
  }
  return (path, method) => byOperation.get(`${method} ${path}`) ?? { guarded: false, scopes: [] };
}

interface GuardedRoute {
  readonly method: string;
  readonly path: string;
  readonly scopes: readonly Scope[];
}

function inventory(app: INestApplication): {
  tags: Array<{ name: string; description: string }>;
  scopes: Set<Scope>;
  guarded: GuardedRoute[];
  tagged: Array<{ method: string; path: string }>;
} {
  const tags = new Map<string, string>();
  const scopes = new Set<Scope>();
  const guarded: GuardedRoute[] = [];
  const tagged: Array<{ method: string; path: string }> = [];
  for (const { controller, handler, method, path } of app.get(DeclaredRoutes).all()) {
    if (Reflect.getMetadata(ETAG_RESPONSE_KEY, handler) === true) {
      tagged.push({ method, path });
    }
    const tag = Reflect.getMetadata(API_TAG_DESCRIPTION_KEY, controller) as
      { name: string; description: string } | undefined;
    if (tag) {
      tags.set(tag.name, tag.description);
    }
    const routeScopes = requiredScopesOf(controller, handler);
    routeScopes.forEach((scope) => scopes.add(scope));
    // As the guard reads it: the handler's word, else the controller's.
    const isPublic =
      (Reflect.getMetadata(IS_PUBLIC_KEY, handler) as boolean | undefined) ??
      (Reflect.getMetadata(IS_PUBLIC_KEY, controller) as boolean | undefined) ??
      false;
    if (!isPublic) {
      guarded.push({ method, path, scopes: routeScopes });
    }
  }
  return {
    tags: [...tags].map(([name, description]) => ({ name, description })),
    scopes: new Set([...scopes].sort()),
    guarded,
    tagged,
  };
}

/** Swagger keeps one declaration per status and the 200 is the controller's: `ETag` and `Last-Modified` are added to it here. */
function documentEntityTags(
  document: OpenAPIObject,
  tagged: ReadonlyArray<{ method: string; path: string }>,
): void {
  for (const route of tagged) {
    const pathItem = document.paths[openApiPath(route.path)] as
      Record<string, OperationObject | undefined> | undefined;
    const ok = pathItem?.[route.method.toLowerCase()]?.responses?.[HttpStatus.OK] as
      { headers?: Record<string, unknown> } | undefined;
    if (ok && !('$ref' in ok)) {
      ok.headers = { ETag: ETAG_HEADER, 'Last-Modified': LAST_MODIFIED_HEADER, ...ok.headers };
    }
  }
}

/** The methods Swagger documents a `@All()` route under. */
const EVERY_METHOD = ['get', 'post', 'put', 'delete', 'patch', 'options', 'head', 'search', 'query'];

function documentedMethods(route: { method: string }): readonly string[] {
  return route.method === 'ALL' ? EVERY_METHOD : [route.method.toLowerCase()];
}

/**
 * The failures the platform answers on every guarded operation (401, 429, 500, 503, and 403 with
 * the scope needed), so that a controller documents only its own; a status it words keeps its wording.
 */
function documentPlatformErrors(document: OpenAPIObject, guarded: readonly GuardedRoute[]): void {
  for (const route of guarded) {
    const pathItem = document.paths[openApiPath(route.path)] as
      Record<string, OperationObject | undefined> | undefined;
    for (const operation of documentedMethods(route).map((method) => pathItem?.[method])) {
      // None where the route is left out of the document (`@ApiExcludeEndpoint()`).
      if (!operation) {
        continue;
      }
      const responses: ResponsesObject = { ...operation.responses };
      for (const status of GUARDED_ERROR_STATUSES) {
        responses[status] ??= errorResponseObject(status);
      }
      const [scope] = route.scopes;
      if (scope) {
        responses[HttpStatus.FORBIDDEN] ??= errorResponseObject(HttpStatus.FORBIDDEN, {
          example: BearerChallenge.insufficientScope(scope).message,
        });
      }
      operation.responses = byStatus(responses);
    }
  }
}

/** A route's pattern as the document's paths write it, as Swagger does: `/plants/:id` → `/plants/{id}`. */
function openApiPath(path: string): string {
  const write = (tokens: Token[]): string =>
    tokens
      .map((token) =>
        token.type === 'text'
          ? token.value
          : token.type === 'group'
            ? write(token.tokens)
            : `{${token.name}}`,
      )
      .join('');
  return write(parse(path).tokens);
}

/** The responses in the order of their status codes, `default` (or a range, `4XX`) last. */
function byStatus(responses: ResponsesObject): ResponsesObject {
  const rank = (key: string) => (/^\d{3}$/.test(key) ? Number(key) : 1000);
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => rank(a) - rank(b)));
}
