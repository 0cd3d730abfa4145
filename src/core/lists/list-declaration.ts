import { getMetadataArgsStorage } from 'typeorm';

/** What `?field[op]=value` may ask of a field; plain `?field=value` is `eq`. */
export const FILTER_OPERATORS = [
  'eq',
  'ne',
  'lt',
  'lte',
  'gt',
  'gte',
  'in',
  'prefix',
  'contains',
  'null',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

/** The operators a text field may take: each served by the field's btree index or its trigram index. */
export const TEXT_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'prefix', 'contains'] as const;
/** The operators a number may take. */
export const NUMBER_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in'] as const;

/** A `contains` value this short would match through every trigram of the index: refused (400). */
export const MIN_CONTAINS_LENGTH = 3;

export interface ListOptions<E> {
  /** The fields a client may sort by (`sort=name,-id`); the id is always one, and the last key. */
  readonly sortable: ReadonlyArray<keyof E & string>;
  /** The operators each field takes; `null` only on a nullable column, `prefix` and `contains` only on text. */
  readonly filterable: { readonly [K in keyof E & string]?: readonly FilterOperator[] };
  /** 20 unless given. */
  readonly defaultLimit?: number;
  /** 100 unless given. */
  readonly maxLimit?: number;
  /** The most values one `in` filter takes: 100 unless given. */
  readonly maxValues?: number;
}

/** How a field's values are checked and written: from its TypeORM column. */
export type FieldKind = 'int64' | 'int32' | 'text';

export interface ListField {
  readonly property: string;
  readonly kind: FieldKind;
  readonly nullable: boolean;
  /** A text column's length (`varchar(n)`), in characters. */
  readonly maxLength: number;
  /** `alias.property`, as the query builder takes it. */
  readonly path: string;
}

/** One query parameter of a filter: `name[prefix]`, or `tag` for `eq`. */
export interface FilterParameter {
  readonly name: string;
  readonly field: ListField;
  readonly operator: FilterOperator;
  /** The parameter's place in the declaration: its SQL parameter is `listFilter<index>`. */
  readonly index: number;
}

/**
 * What a resource's list lets a client sort and filter by, read once from the entity's TypeORM
 * columns: the query DTO (`ListQueryDto`), the query (`listPage`) and the OpenAPI document all read
 * it, so a field declared here is a field the list serves.
 */
export class ListDeclaration<E = unknown> {
  /** The query builder's alias: the entity's name in lower camel case (`plant`). */
  readonly alias: string;
  /** What the records are called in the document's words: the table's name (`plants`). */
  readonly noun: string;
  readonly id: ListField;
  readonly fields: ReadonlyMap<string, ListField>;
  readonly sortable: readonly ListField[];
  readonly filters: readonly FilterParameter[];
  readonly defaultLimit: number;
  readonly maxLimit: number;
  readonly maxValues: number;
  /**
   * The entity's `@DeleteDateColumn()`, when its deletes are soft: the list then takes `deleted=only`,
   * the deleted records in place of the others.
   */
  readonly deleteDate?: string;

  constructor(
    readonly entity: abstract new () => E,
    options: ListOptions<E>,
  ) {
    this.alias = entity.name.charAt(0).toLowerCase() + entity.name.slice(1);
    this.noun = tableNameOf(entity).replace(/_/g, ' ');
    const fields = new Map<string, ListField>();
    const field = (property: string): ListField => {
      let known = fields.get(property);
      if (!known) {
        known = columnField(entity, property, this.alias);
        fields.set(property, known);
      }
      return known;
    };
    this.id = field(primaryPropertyOf(entity));
    if (this.id.kind === 'text' || this.id.nullable) {
      throw new Error(`${entity.name}: a list pages by its id, which must be an integer column`);
    }
    const sortable = new Set<string>([...options.sortable, this.id.property]);
    this.sortable = [...sortable].map(field);
    const filters: FilterParameter[] = [];
    for (const [property, operators] of Object.entries<readonly FilterOperator[] | undefined>(
      options.filterable,
    )) {
      for (const operator of new Set(operators ?? [])) {
        const declared = field(property);
        refuseUnservable(entity.name, declared, operator);
        const name = operator === 'eq' ? property : `${property}[${operator}]`;
        filters.push({ name, field: declared, operator, index: filters.length });
      }
    }
    this.filters = filters;
    this.fields = fields;
    this.deleteDate = columnsOf(entity).find((column) => column.mode === 'deleteDate')?.propertyName;
    this.defaultLimit = options.defaultLimit ?? 20;
    this.maxLimit = options.maxLimit ?? 100;
    this.maxValues = options.maxValues ?? 100;
  }
}

/**
 * A resource's list, declared once beside its query DTO:
 *
 * ```ts
 * export const PLANTS_LIST = defineList(Plant, { sortable: ['id', 'name'], filterable: { name: ['eq', 'prefix'] } });
 * export class ListPlantsQueryDto extends ListQueryDto(PLANTS_LIST) {}
 * ```
 */
export function defineList<E>(entity: abstract new () => E, options: ListOptions<E>): ListDeclaration<E> {
  return new ListDeclaration(entity, options);
}

/** An entity's columns, its parents' included (TypeORM records a column on the class that declares it). */
function columnsOf(entity: abstract new () => unknown) {
  return getMetadataArgsStorage().columns.filter(
    (column) =>
      typeof column.target === 'function' &&
      (column.target === entity || entity.prototype instanceof column.target),
  );
}

function tableNameOf(entity: abstract new () => unknown): string {
  const table = getMetadataArgsStorage().tables.find((candidate) => candidate.target === entity);
  if (!table?.name) {
    throw new Error(`${entity.name}: a list needs an @Entity({ name }) to name its records`);
  }
  return table.name;
}

function primaryPropertyOf(entity: abstract new () => unknown): string {
  const primary = columnsOf(entity).filter((column) => column.options.primary);
  if (primary.length !== 1) {
    throw new Error(`${entity.name}: a list pages by one primary column, not ${primary.length}`);
  }
  return primary[0].propertyName;
}

const INT64_TYPES = new Set(['bigint', 'int8']);
const INT32_TYPES = new Set(['integer', 'int', 'int4', 'smallint', 'int2']);
const TEXT_TYPES = new Set(['varchar', 'character varying']);

function columnField(entity: abstract new () => unknown, property: string, alias: string): ListField {
  const column = columnsOf(entity).find((candidate) => candidate.propertyName === property);
  if (!column) {
    throw new Error(`${entity.name}: ${property} is not a column, so a list cannot sort or filter by it`);
  }
  const type = typeof column.options.type === 'string' ? column.options.type : undefined;
  const nullable = column.options.nullable === true;
  const path = `${alias}.${property}`;
  if (type !== undefined && INT64_TYPES.has(type)) {
    return { property, kind: 'int64', nullable, maxLength: 20, path };
  }
  if (type !== undefined && INT32_TYPES.has(type)) {
    return { property, kind: 'int32', nullable, maxLength: 11, path };
  }
  const length = Number(column.options.length);
  if (type !== undefined && TEXT_TYPES.has(type) && Number.isSafeInteger(length) && length > 0) {
    return { property, kind: 'text', nullable, maxLength: length, path };
  }
  throw new Error(
    `${entity.name}.${property}: a list sorts and filters bigint, integer and varchar(n) columns, not ${type ?? 'this one'}`,
  );
}

function refuseUnservable(entity: string, field: ListField, operator: FilterOperator): void {
  if (!(FILTER_OPERATORS as readonly string[]).includes(operator)) {
    throw new Error(`${entity}.${field.property}: ${operator} is not a filter operator`);
  }
  if ((operator === 'prefix' || operator === 'contains') && field.kind !== 'text') {
    throw new Error(`${entity}.${field.property}: ${operator} filters text, and this column is a number`);
  }
  if (operator === 'null' && !field.nullable) {
    throw new Error(`${entity}.${field.property}: the column is never null, so it takes no null filter`);
  }
}
