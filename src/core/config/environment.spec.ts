import { readFile } from 'node:fs/promises';

import { getMetadataStorage } from 'class-validator';

import { Environment } from './environment.js';

/** Every variable the service reads: the properties of `Environment`, which validates them all. */
function variablesRead(): string[] {
  const rules = getMetadataStorage().getTargetValidationMetadatas(Environment, '', true, false);
  return [...new Set(rules.map((rule) => rule.propertyName))].sort();
}

describe('the environment variables', () => {
  it('are all described in the configuration reference', async () => {
    const reference = await readFile('docs/configuration.md', 'utf8');
    // The names in the first cell of each row of the table: `A`, or `A`, `B`.
    const documented = new Set(
      reference
        .split('\n')
        .filter((line) => line.startsWith('|'))
        .flatMap((line) => [...line.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map(([, name]) => name)),
    );

    expect(variablesRead().filter((name) => !documented.has(name))).toStrictEqual([]);
  });

  it('all appear in .env.example', async () => {
    const example = await readFile('.env.example', 'utf8');
    const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map(([, name]) => name));

    expect(variablesRead().filter((name) => !listed.has(name))).toStrictEqual([]);
  });

  it('are found: the list is not empty', () => {
    expect(variablesRead()).toEqual(expect.arrayContaining(['DATABASE_URL', 'AUTH_TOKENS', 'PORT']));
  });
});
