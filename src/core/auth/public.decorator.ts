import { applyDecorators, SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'auth:isPublic';

/** The `@nestjs/swagger` metadata key of an operation's security requirements. */
const SWAGGER_SECURITY_KEY = 'swagger/apiSecurity';

/**
 * Opts a route out of the global bearer guard, and out of the document's
 * global security requirement (`security: []`). Every use is deliberate: the
 * route inventory test lists the routes allowed to carry it.
 */
export function Public(): ClassDecorator & MethodDecorator {
  return applyDecorators(SetMetadata(IS_PUBLIC_KEY, true), SetMetadata(SWAGGER_SECURITY_KEY, []));
}
