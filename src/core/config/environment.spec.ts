import { readFile } from 'node:fs/promises';

import { getMetadataStorage } from 'class-validator';

import { AppEnvironment } from './app.config.js';
import { AuthEnvironment } from './auth.config.js';
import { DatabaseEnvironment } from './database.config.js';
import { environmentConcerns, isLoopbackUrl, readEnvironment } from './environment.js';
import { HttpEnvironment } from './http.config.js';
import { WebhookEnvironment } from './webhook.config.js';

const CONCERNS = [AppEnvironment, DatabaseEnvironment, AuthEnvironment, HttpEnvironment, WebhookEnvironment];

/** Every variable the service reads, with the default its concern gives it (undefined: none). */
function variablesRead(): Map<string, unknown> {
  const variables = new Map<string, unknown>();
  for (const concern of environmentConcerns()) {
    const defaults = new concern() as Record<string, unknown>;
    for (const rule of getMetadataStorage().getTargetValidationMetadatas(concern, '', true, false)) {
      variables.set(rule.propertyName, defaults[rule.propertyName]);
    }
  }
  return variables;
}

/** The reference's table: each variable named in a row's first cell, with the row's default cell. */
async function documented(): Promise<Map<string, string>> {
  const reference = await readFile('docs/configuration.md', 'utf8');
  const rows = new Map<string, string>();
  for (const line of reference.split('\n').filter((row) => row.startsWith('|'))) {
    const [, names = '', defaultCell = ''] = line.split('|');
    for (const [, name] of names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) {
      rows.set(name, defaultCell.trim());
    }
  }
  return rows;
}

describe('the environment variables', () => {
  it('are each declared by one concern, all of which are registered', () => {
    expect([...environmentConcerns()]).toEqual(expect.arrayContaining(CONCERNS));
    const names = CONCERNS.flatMap((concern) =>
      getMetadataStorage()
        .getTargetValidationMetadatas(concern, '', true, false)
        .map((rule) => rule.propertyName),
    );
    const declaredTwice = [...new Set(names)].filter(
      (name) =>
        CONCERNS.filter((concern) =>
          getMetadataStorage()
            .getTargetValidationMetadatas(concern, '', true, false)
            .some((rule) => rule.propertyName === name),
        ).length > 1,
    );
    expect(declaredTwice).toStrictEqual([]);
    expect([...variablesRead().keys()]).toEqual(
      expect.arrayContaining(['DATABASE_URL', 'AUTH_TOKENS', 'PORT']),
    );
  });

  it('are all described in the configuration reference, with the default the code gives them', async () => {
    const rows = await documented();
    const undocumented = [...variablesRead().keys()].filter((name) => !rows.has(name));
    expect(undocumented).toStrictEqual([]);

    const wrongDefaults = [...variablesRead()]
      .filter(([, value]) => value !== undefined)
      .filter(([name, value]) => rows.get(name) !== `\`${String(value)}\``)
      .map(([name, value]) => `${name}: the code says ${String(value)}, the reference ${rows.get(name)}`);
    expect(wrongDefaults).toStrictEqual([]);
  });

  it('all appear in .env.example', async () => {
    const example = await readFile('.env.example', 'utf8');
    const listed = new Set([...example.matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map(([, name]) => name));

    expect([...variablesRead().keys()].filter((name) => !listed.has(name))).toStrictEqual([]);
  });

  it('fill in each default once, and treat an empty variable as unset', () => {
    expect(readEnvironment(DatabaseEnvironment, {})).toMatchObject({
      DATABASE_POOL_SIZE: 10,
      DATABASE_MIGRATIONS_RUN: true,
    });
    expect(
      readEnvironment(DatabaseEnvironment, { DATABASE_POOL_SIZE: '', DATABASE_MIGRATIONS_RUN: 'false' }),
    ).toMatchObject({ DATABASE_POOL_SIZE: 10, DATABASE_MIGRATIONS_RUN: false });
  });

  it('name every problem of every concern at once', () => {
    expect(() =>
      readEnvironment(AppEnvironment, { PORT: 'eighty', DATABASE_POOL_SIZE: '0', METRICS_ENABLED: 'maybe' }),
    ).toThrow(
      /PORT must be an integer number[\s\S]*DATABASE_POOL_SIZE must not be less than 1[\s\S]*METRICS_ENABLED must be true or false/,
    );
  });
});

describe('plain http:// to this machine only', () => {
  it('is allowed to loopback, and refused to a host that only begins like it, for the key set and the webhooks', () => {
    const loopback = [
      'http://localhost/x',
      'http://127.0.0.1:9000/x',
      'http://127.8.9.10/x',
      'http://[::1]:8080/x',
    ];
    const elsewhere = [
      'http://127.0.0.1.example.com/x',
      'http://127.evil.test/x',
      'http://10.0.0.7/x',
      'not a url',
    ];
    expect([...loopback, ...elsewhere].filter((url) => isLoopbackUrl(url))).toStrictEqual(loopback);

    const jwt = { AUTH_ISSUER: 'https://issuer.test/', AUTH_AUDIENCE: 'plant-store' };
    expect(() =>
      readEnvironment(AuthEnvironment, { ...jwt, AUTH_JWKS_URL: 'http://127.0.0.1.example.com/jwks.json' }),
    ).toThrow('AUTH_JWKS_URL must use https (plain http is allowed on a loopback address only)');
    expect(() =>
      readEnvironment(AuthEnvironment, { ...jwt, AUTH_JWKS_URL: 'http://127.0.0.1:9000/jwks.json' }),
    ).not.toThrow();
  });
});
