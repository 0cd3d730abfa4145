'use strict';

const { join, normalize, strings } = require('@angular-devkit/core');
const {
  apply,
  applyTemplates,
  chain,
  externalSchematic,
  mergeWith,
  move,
  url,
} = require('@angular-devkit/schematics');
const { RunSchematicTask } = require('@angular-devkit/schematics/tasks');
const { ModuleDeclarator, ModuleFinder, NameParser } = require('@nestjs/schematics');
const pluralize = require('pluralize');

/**
 * `nest g resource <name>`: for a REST resource with CRUD (the defaults),
 * a resource of the platform, as `src/plants/` is written: an entity with a
 * server-given int64 id, a version and its times, kept in the audit trail,
 * its migration, DTOs with rules, a controller and a service with keyset
 * pages, ETags and merge-patch updates, its errors, its specs and an e2e
 * suite, and its module imported by the application's. Any other
 * transport, or no CRUD, is Nest's own.
 */
function resource(options) {
  if ((options.type ?? 'rest') !== 'rest' || options.crud === false) {
    return externalSchematic('@nestjs/schematics', 'resource', options);
  }
  return (tree, context) => {
    const names = resourceNames(options);
    const path = options.flat ? names.path : join(normalize(names.path), names.name);
    const rules = [
      // Before the files are written, or the nearest module would be the resource's own.
      options.skipImport ? undefined : importInRootModule(names.name, path),
      mergeWith(apply(url('./files/resource'), [applyTemplates(names), move(path)])),
      mergeWith(apply(url('./files/test'), [applyTemplates(names), move('test')])),
      formatWritten(),
    ];
    context.addTask(new RunSchematicTask('openapi', {}));
    return chain(rules.filter(Boolean))(tree, context);
  };
}

/**
 * `nest g soft-delete-resource <name>`: the same REST resource, whose DELETE
 * hides a record (TypeORM's `@DeleteDateColumn()`), which
 * `POST /<name>/{id}/restore` brings back, `?deleted=only` lists, and
 * retention purges after `SOFT_DELETE_RETENTION_DAYS`.
 */
function softDeleteResource(options) {
  return resource({ ...options, type: 'rest', crud: true, softDelete: true });
}

/** What the templates are named after: `spare-parts` gives `SpareParts`, `SparePart`, `sparePart`, `SPARE_PART`, `SPARE_PARTS`, `spare_parts` (the table), `a spare part`. */
function resourceNames(options) {
  if (!options.name) {
    throw new Error('Give the resource a name: nest g resource <name>');
  }
  const base = join(normalize(options.sourceRoot ?? 'src'), options.path ?? '');
  const location = new NameParser().parse({ name: options.name, path: base });
  const name = strings.dasherize(location.name);
  const singular = pluralize.singular(name);
  const wordsSingular = singular.replace(/-/g, ' ');
  const a = `${/^[aeiou]/.test(singular) ? 'an' : 'a'} ${wordsSingular}`;
  const timestamp = String(Date.now());
  return {
    softDelete: options.softDelete === true,
    name,
    path: location.path,
    singular,
    Plural: strings.classify(name),
    Singular: strings.classify(singular),
    plural: strings.camelize(name),
    camel: strings.camelize(singular),
    CONSTANT: strings.underscore(singular).toUpperCase(),
    CONSTANTS: strings.underscore(name).toUpperCase(),
    table: strings.underscore(name),
    words: name.replace(/-/g, ' '),
    Words: strings.capitalize(name.replace(/-/g, ' ')),
    wordsSingular,
    a,
    A: strings.capitalize(a),
    timestamp,
  };
}

/** Imports the module in the nearest module above it (`src/app.module.ts`), after the platform's own. */
function importInRootModule(name, path) {
  return (tree) => {
    const module = new ModuleFinder(tree).find({ name, path });
    if (!module) {
      return tree;
    }
    const declared = new ModuleDeclarator().declare(tree.read(module).toString(), {
      name,
      path,
      module,
      type: 'module',
      metadata: 'imports',
      isEsm: true,
    });
    tree.overwrite(module, declared);
    return tree;
  };
}

/** Writes every file it creates or changes as the project's Prettier would, so `npm run lint` passes as written. */
function formatWritten() {
  return async (tree) => {
    const prettier = await import('prettier');
    for (const action of tree.actions) {
      if ((action.kind !== 'c' && action.kind !== 'o') || !action.path.endsWith('.ts')) {
        continue;
      }
      const file = join(normalize(process.cwd()), action.path);
      const options = (await prettier.resolveConfig(file)) ?? {};
      const source = tree.read(action.path).toString();
      const formatted = await prettier.format(source, { ...options, filepath: file });
      if (formatted !== source) {
        tree.overwrite(action.path, formatted);
      }
    }
    return tree;
  };
}

module.exports = { resource, softDeleteResource };
