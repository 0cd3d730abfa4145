import { defineScalarTag, dump, DUMP_SCHEMA, Schema, type ScalarTagDefinition } from 'js-yaml';

declare global {
  interface JSON {
    /** Whether `value` came from `JSON.rawJSON` (ES2026; no TypeScript lib declares it yet). */
    isRawJSON(value: unknown): value is { readonly rawJSON: string };
  }
}

/**
 * YAML's integers, plus the integers the document holds as raw JSON text
 * (`JSON.rawJSON`): int64's bounds, which no double holds exactly. They are
 * written as their digits, as `JSON.stringify` writes them in `/openapi.json`.
 */
const SCHEMA = new Schema(
  DUMP_SCHEMA.tags.map((tag) =>
    tag.tagName === 'tag:yaml.org,2002:int' && tag.nodeKind === 'scalar' ? exactIntegers(tag) : tag,
  ),
);

function exactIntegers(integers: ScalarTagDefinition): ScalarTagDefinition {
  return defineScalarTag(integers.tagName, {
    ...integers,
    identify: (data) => JSON.isRawJSON(data) || integers.identify(data),
    represent: (data) => (JSON.isRawJSON(data) ? data.rawJSON : integers.represent(data)),
  });
}

/** The document as YAML: what `npm run openapi` commits and `/openapi.yaml` serves, the same text. */
export function openApiYaml(document: object): string {
  return dump(document, { noRefs: true, lineWidth: 120, schema: SCHEMA });
}
