import { createHash } from 'node:crypto';

import { authConfig, AuthEnvironment } from './auth.config.js';
import { readEnvironment } from './environment.js';

const JWT = {
  AUTH_JWT_SECRET: 'a-shared-secret-of-at-least-32-characters',
  AUTH_ISSUER: 'https://issuer.test/',
  AUTH_AUDIENCE: 'plant-store',
};

/** The JWT settings the service would run with under these variables. */
function jwtSettingsWith(env: Record<string, string>) {
  const saved = { ...process.env };
  Object.assign(process.env, JWT, env);
  try {
    return authConfig().jwt;
  } finally {
    for (const name of Object.keys(process.env)) {
      if (!(name in saved)) {
        delete process.env[name];
      }
    }
    Object.assign(process.env, saved);
  }
}

describe('AUTH_JWT_TYPES', () => {
  it('accepts JWT and at+jwt unless set, as the media types they name', () => {
    expect(jwtSettingsWith({})?.types).toStrictEqual(['application/jwt', 'application/at+jwt']);
    expect(jwtSettingsWith({ AUTH_JWT_TYPES: 'AT+JWT, application/custom+jwt' })?.types).toStrictEqual([
      'application/at+jwt',
      'application/custom+jwt',
    ]);
  });

  it.each([',', 'at jwt', 'JWT,a/b/c', 'JWT;q=1'])('refuses %j at start', (types) => {
    expect(() => readEnvironment(AuthEnvironment, { ...JWT, AUTH_JWT_TYPES: types })).toThrow(
      'AUTH_JWT_TYPES must list media types, comma-separated (JWT,at+jwt)',
    );
  });
});

describe('AUTH_JWT_MAX_AGE', () => {
  it.each([
    [undefined, 86_400],
    ['3600', 3_600],
    ['90s', 90],
    ['15m', 900],
    ['24h', 86_400],
    ['30d', 2_592_000],
  ])('reads %j as %d seconds', (maxAge, seconds) => {
    expect(jwtSettingsWith(maxAge === undefined ? {} : { AUTH_JWT_MAX_AGE: maxAge })?.maxAgeSeconds).toBe(
      seconds,
    );
  });

  it.each(['59', '59s', '31d', '1w', '1.5h', '-1h', 'h', 'forever'])('refuses %j at start', (maxAge) => {
    expect(() => readEnvironment(AuthEnvironment, { ...JWT, AUTH_JWT_MAX_AGE: maxAge })).toThrow(
      'AUTH_JWT_MAX_AGE must be from 60s to 30d: seconds, or a number with s, m, h or d (24h)',
    );
  });
});

describe('AUTH_TOKENS', () => {
  const TOKEN = 'a-static-token-0123456789';
  const DIGEST = createHash('sha256').update(TOKEN).digest();

  /** The static tokens the service would accept under this variable. */
  function staticTokensWith(tokens: string) {
    const saved = process.env.AUTH_TOKENS;
    process.env.AUTH_TOKENS = tokens;
    try {
      return authConfig().staticTokens;
    } finally {
      if (saved === undefined) {
        delete process.env.AUTH_TOKENS;
      } else {
        process.env.AUTH_TOKENS = saved;
      }
    }
  }

  it('takes a name before a token or its digest, and keeps only digests', () => {
    expect(staticTokensWith(`ci:${TOKEN},ops:sha256:${DIGEST.toString('hex')},${TOKEN}`)).toStrictEqual([
      { sha256: DIGEST, name: 'ci' },
      { sha256: DIGEST, name: 'ops' },
      { sha256: DIGEST },
    ]);
  });

  it('refuses a name given to two tokens, without echoing either', () => {
    const run = () => readEnvironment(AuthEnvironment, { AUTH_TOKENS: `ci:${TOKEN},ci:${TOKEN}x` });

    expect(run).toThrow('AUTH_TOKENS names ci more than once');
    expect(run).not.toThrow(TOKEN);
  });
});
