import { type JWTHeaderParameters, SignJWT } from 'jose';

import type { JwtSettings } from '../config/auth.config.js';
import { JwtVerifier } from './jwt.verifier.js';

const SECRET = new TextEncoder().encode('a-shared-secret-of-at-least-32-characters');
const ISSUER = 'https://issuer.example.test/';
const AUDIENCE = 'plant-store';
const HOUR = 3_600;

const SETTINGS: JwtSettings = {
  keys: { kind: 'secret', secret: SECRET },
  issuer: ISSUER,
  audience: AUDIENCE,
  algorithms: ['HS256'],
  clockToleranceSeconds: 5,
  types: ['application/jwt', 'application/at+jwt'],
  maxAgeSeconds: HOUR,
};

const now = () => Math.floor(Date.now() / 1000);

/** A token valid for SETTINGS unless a claim (undefined: left out) or a header parameter says otherwise. */
function token(
  claims: Record<string, unknown> = {},
  header: Partial<JWTHeaderParameters> = {},
): Promise<string> {
  const payload = Object.fromEntries(
    Object.entries({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: 'client-7',
      iat: now(),
      exp: now() + 300,
      ...claims,
    }).filter(([, value]) => value !== undefined),
  );
  const crit = header.crit;
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', ...header })
    .sign(SECRET, { crit: crit ? Object.fromEntries(crit.map((name) => [name, true])) : undefined });
}

async function subjectOf(
  jwt: Promise<string>,
  settings: JwtSettings = SETTINGS,
): Promise<string | undefined> {
  return (await new JwtVerifier(settings).verify(await jwt))?.subject;
}

describe('JwtVerifier', () => {
  it('accepts a valid token, and names its principal after its sub', async () => {
    await expect(subjectOf(token())).resolves.toBe('jwt:client-7');
  });

  it('refuses a token marking any extension critical, b64 included', async () => {
    await expect(subjectOf(token({}, { crit: ['b64'], b64: true }))).resolves.toBeUndefined();
    await expect(
      subjectOf(token({}, { crit: ['x-plant-store'], 'x-plant-store': 1 })),
    ).resolves.toBeUndefined();
  });

  it.each(['JWT', 'jwt', 'at+jwt', 'AT+JWT', 'application/at+jwt', undefined])(
    'accepts a typ of %s (none at all too)',
    async (typ) => {
      await expect(subjectOf(token({}, { typ }))).resolves.toBe('jwt:client-7');
    },
  );

  it.each(['dpop+jwt', 'JWE', 'logout+jwt', 'application/json', 7, ''])(
    'refuses a typ of %s',
    async (typ) => {
      await expect(subjectOf(token({}, { typ: typ as string }))).resolves.toBeUndefined();
    },
  );

  it('accepts only the typ values configured', async () => {
    const accessTokensOnly = { ...SETTINGS, types: ['application/at+jwt'] };

    await expect(subjectOf(token({}, { typ: 'at+jwt' }), accessTokensOnly)).resolves.toBe('jwt:client-7');
    await expect(subjectOf(token({}, { typ: 'JWT' }), accessTokensOnly)).resolves.toBeUndefined();
  });

  it('refuses an iat in the future beyond the clock tolerance, and allows one within it', async () => {
    await expect(subjectOf(token({ iat: now() + 3 }))).resolves.toBe('jwt:client-7');
    await expect(subjectOf(token({ iat: now() + 60 }))).resolves.toBeUndefined();
    await expect(subjectOf(token({ iat: now() + 86_400, exp: now() + 90_000 }))).resolves.toBeUndefined();
  });

  it('refuses a token older than the maximum age, however far off its exp', async () => {
    await expect(subjectOf(token({ iat: now() - HOUR + 60 }))).resolves.toBe('jwt:client-7');
    await expect(subjectOf(token({ iat: now() - HOUR - 60 }))).resolves.toBeUndefined();
    await expect(subjectOf(token({ iat: now() - 2 * HOUR, exp: 10 ** 15 }))).resolves.toBeUndefined();
  });

  it('refuses a token without iat, whose age nobody can tell (fail closed)', async () => {
    await expect(subjectOf(token({ iat: undefined }))).resolves.toBeUndefined();
    await expect(subjectOf(token({ iat: undefined, exp: 10 ** 15 }))).resolves.toBeUndefined();
    await expect(subjectOf(token({ iat: String(now()) }))).resolves.toBeUndefined();
  });

  it.each([
    ['a number', 123],
    ['an object', { id: 'client-7' }],
    ['a list', ['client-7']],
    ['true', true],
    ['empty', ''],
    ['null', null],
    ['missing', undefined],
  ])('refuses a sub that is %s: it would share a principal with others', async (_case, sub) => {
    await expect(subjectOf(token({ sub }))).resolves.toBeUndefined();
  });

  it('accepts a string sub that looks like a number, as a principal of its own', async () => {
    await expect(subjectOf(token({ sub: '123' }))).resolves.toBe('jwt:123');
  });
});
