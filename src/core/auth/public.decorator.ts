import { applyDecorators, SetMetadata } from '@nestjs/common';

export const IS_PUBLIC_KEY = 'auth:isPublic';

/** The `@nestjs/swagger` metadata key of an operation's security requirements. */
const SWAGGER_SECURITY_KEY = 'swagger/apiSecurity';

/** Out of the bearer guard and the document's security; the route inventory test lists who may use it. */
export function Public(): ClassDecorator & MethodDecorator {
  return applyDecorators(SetMetadata(IS_PUBLIC_KEY, true), SetMetadata(SWAGGER_SECURITY_KEY, []));
}
