import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { exportJWK, generateKeyPair, type JWK, jwtVerify, SignJWT } from 'jose';

import { IssuerKeySet, KeySetUnavailableError, MAX_KEY_SET_BYTES } from './issuer-key-set.js';

const URL_OF_SET = new URL('https://issuer.example.test/.well-known/jwks.json');
const SETTINGS = {
  url: URL_OF_SET,
  timeoutMs: 500,
  cacheMaxAgeMs: 60_000,
  maxStaleMs: 600_000,
  cooldownMs: 30_000,
};

/** An issuer whose answers the test sets, counting the fetches; and a clock the test moves. */
async function fixture() {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  const issuer = {
    fetches: 0,
    answer: (): Response => Response.json({ keys: [jwk] }),
  };
  const clock = { now: 1_000_000 };
  const fetchKeySet = ((_url: URL, init: RequestInit) => {
    issuer.fetches++;
    expect(init.redirect).toBe('manual');
    return Promise.resolve(issuer.answer());
  }) as unknown as typeof fetch;
  const keySet = new IssuerKeySet(SETTINGS, fetchKeySet, () => clock.now);
  const token = (kid = 'k1') =>
    new SignJWT({ sub: 'client' }).setProtectedHeader({ alg: 'RS256', kid }).sign(privateKey);
  const verify = async (kid?: string) => (await jwtVerify(await token(kid), keySet.getKey)).payload.sub;
  return { issuer, clock, verify, jwk, keySet };
}

const down = (): Response => {
  throw new TypeError('fetch failed');
};

describe('IssuerKeySet', () => {
  it('fetches once, then serves its copy until the cache age', async () => {
    const { issuer, verify } = await fixture();

    await expect(Promise.all([verify(), verify(), verify()])).resolves.toStrictEqual([
      'client',
      'client',
      'client',
    ]);
    expect(issuer.fetches).toBe(1);
  });

  it('refreshes a copy past its cache age in the background, and serves it stale while the issuer is down', async () => {
    const { issuer, clock, verify } = await fixture();
    await verify();

    issuer.answer = down;
    clock.now += SETTINGS.cacheMaxAgeMs;
    await expect(verify()).resolves.toBe('client');
    expect(issuer.fetches).toBe(2);

    // Within the stale bound, the issuer is asked again at most once per cooldown.
    clock.now += SETTINGS.cooldownMs / 2;
    await expect(verify()).resolves.toBe('client');
    expect(issuer.fetches).toBe(2);
    clock.now += SETTINGS.cooldownMs;
    await expect(verify()).resolves.toBe('client');
    expect(issuer.fetches).toBe(3);
  });

  it('answers unavailable once the copy is past the stale bound, and recovers with the issuer', async () => {
    const { issuer, clock, verify } = await fixture();
    await verify();

    issuer.answer = down;
    clock.now += SETTINGS.cacheMaxAgeMs + SETTINGS.maxStaleMs;
    await expect(verify()).rejects.toBeInstanceOf(KeySetUnavailableError);
    // Right after a failure, no fetch: unavailable at once.
    await expect(verify()).rejects.toBeInstanceOf(KeySetUnavailableError);
    expect(issuer.fetches).toBe(2);

    issuer.answer = () => Response.json({ keys: [] });
    clock.now += 1_000;
    await expect(verify()).rejects.toThrow('no applicable key found');
    expect(issuer.fetches).toBe(3);
  });

  it('backs off while it has no key set: 1 s after a failed fetch, then 2 s, 4 s… up to the cooldown, one log line each', async () => {
    const warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { issuer, clock, verify } = await fixture();
      issuer.answer = down;
      const started = clock.now;
      const fetchedAt: number[] = [];

      // A request every 250 ms for two minutes: each is refused, and only some cause a fetch.
      for (let elapsed = 0; elapsed <= 120_000; elapsed += 250) {
        clock.now = started + elapsed;
        const before = issuer.fetches;
        await expect(verify()).rejects.toBeInstanceOf(KeySetUnavailableError);
        if (issuer.fetches > before) {
          fetchedAt.push(elapsed);
        }
      }

      expect(fetchedAt).toStrictEqual([0, 1_000, 3_000, 7_000, 15_000, 31_000, 61_000, 91_000]);
      expect(warnings).toHaveBeenCalledTimes(fetchedAt.length);

      // Once the issuer answers, the next fetch takes its set, and the pause starts again from 1 s.
      issuer.answer = () => Response.json({ keys: [] });
      clock.now = started + 121_000;
      await expect(verify()).rejects.toThrow('no applicable key found');
      expect(issuer.fetches).toBe(fetchedAt.length + 1);
    } finally {
      warnings.mockRestore();
    }
  });

  it('lets unknown kids reach the issuer once per cooldown, however many there are', async () => {
    const { issuer, clock, verify } = await fixture();
    await verify();

    const flood = await Promise.allSettled(
      Array.from({ length: 50 }, (_, index) => verify(`random-${index}`)),
    );
    expect(flood.every(({ status }) => status === 'rejected')).toBe(true);
    expect(issuer.fetches).toBe(1);

    clock.now += SETTINGS.cooldownMs;
    await expect(verify('random-again')).rejects.toThrow('no applicable key found');
    await expect(verify('random-once-more')).rejects.toThrow('no applicable key found');
    expect(issuer.fetches).toBe(2);
  });

  it('takes a key added by the issuer on the first token that names it, past the cooldown', async () => {
    const { issuer, clock, verify, jwk } = await fixture();
    await verify();

    issuer.answer = () => Response.json({ keys: [jwk, { ...jwk, kid: 'k2' }] });
    clock.now += SETTINGS.cooldownMs;
    await expect(verify('k2')).resolves.toBe('client');
    expect(issuer.fetches).toBe(2);
  });

  it.each([
    [
      'a redirect, not followed',
      () => new Response(null, { status: 302, headers: { location: 'https://evil.test/' } }),
    ],
    ['an error status', () => new Response('{}', { status: 500 })],
    ['an oversized set, declared', () => new Response('x'.repeat(MAX_KEY_SET_BYTES + 1))],
    [
      'an oversized set, streamed',
      () =>
        new Response(
          new ReadableStream({
            pull: (controller) => controller.enqueue(new Uint8Array(16 * 1024)),
          }),
        ),
    ],
    ['not JSON', () => new Response('<html>')],
    ['JSON without keys', () => Response.json({ key: [] })],
  ])('refuses %s as unavailable', async (_case, answer) => {
    const { issuer, verify } = await fixture();
    issuer.answer = answer;

    await expect(verify()).rejects.toBeInstanceOf(KeySetUnavailableError);
  });

  it('keeps no shared-secret (oct) key of a set anyone may read', async () => {
    const { issuer, verify, jwk, keySet } = await fixture();
    const secret = new TextEncoder().encode('a-secret-published-by-mistake-0123456789');
    issuer.answer = () =>
      Response.json({
        keys: [jwk, { kty: 'oct', kid: 'shared', k: Buffer.from(secret).toString('base64url') }],
      });
    await verify();

    const forged = await new SignJWT({ sub: 'anyone' })
      .setProtectedHeader({ alg: 'HS256', kid: 'shared' })
      .sign(secret);
    await expect(jwtVerify(forged, keySet.getKey)).rejects.toThrow();
  });
});
