const AUDITED_KEY = 'plant-store:audited';
const SENSITIVE_KEY = 'plant-store:sensitive';

/**
 * Declares that every change to the entity is kept in the audit trail, under the resource's name as
 * its API says it (`plants`, `spare-parts`): `GET /audit-events?resource=<name>&id=<id>` reads it back.
 */
export function Audited(resource: string): ClassDecorator {
  return (target) => Reflect.defineMetadata(AUDITED_KEY, resource, target);
}

/** A field whose changes the audit trail records as made, never with their values. */
export function Sensitive(): PropertyDecorator {
  return (target, property) => {
    const names = (Reflect.getMetadata(SENSITIVE_KEY, target.constructor) as string[] | undefined) ?? [];
    Reflect.defineMetadata(SENSITIVE_KEY, [...names, String(property)], target.constructor);
  };
}

/** The resource an entity class is audited as, if it is. */
export function auditedResourceOf(target: unknown): string | undefined {
  return typeof target === 'function'
    ? (Reflect.getMetadata(AUDITED_KEY, target) as string | undefined)
    : undefined;
}

export function sensitivePropertiesOf(target: unknown): ReadonlySet<string> {
  return new Set(
    typeof target === 'function'
      ? ((Reflect.getMetadata(SENSITIVE_KEY, target) as string[] | undefined) ?? [])
      : [],
  );
}
