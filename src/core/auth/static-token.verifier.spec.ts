import { createHash } from 'node:crypto';

import { StaticTokenVerifier } from './static-token.verifier.js';

const sha256 = (token: string) => createHash('sha256').update(token).digest();

describe('StaticTokenVerifier', () => {
  const verifier = new StaticTokenVerifier([
    { sha256: sha256('first-token-0123456789') },
    { sha256: sha256('second-token-0123456789') },
  ]);

  it('accepts each configured token, so that tokens can be rotated', () => {
    expect(verifier.verify('first-token-0123456789')?.subject).toMatch(/^token:[0-9a-f]{8}$/);
    expect(verifier.verify('second-token-0123456789')?.subject).toMatch(/^token:[0-9a-f]{8}$/);
  });

  it('names a token as its entry does, or else by a label that stays whatever else the list holds', () => {
    const named = new StaticTokenVerifier([{ sha256: sha256('first-token-0123456789'), name: 'ci' }]);
    const label = verifier.verify('second-token-0123456789')?.subject;

    expect(named.verify('first-token-0123456789')?.subject).toBe('token:ci');
    expect(
      new StaticTokenVerifier([{ sha256: sha256('second-token-0123456789') }]).verify(
        'second-token-0123456789',
      )?.subject,
    ).toBe(label);
    expect(label).not.toBe(verifier.verify('first-token-0123456789')?.subject);
    // Neither the token nor any part of its digest.
    const digest = sha256('second-token-0123456789').toString('hex');
    expect(digest).not.toContain(label!.slice('token:'.length));
    expect(label).not.toContain('second-token');
  });

  it('refuses any other token, including prefixes and near misses', () => {
    for (const token of ['first-token-012345678', 'first-token-0123456789 ', 'FIRST-TOKEN-0123456789', '']) {
      expect(verifier.verify(token)).toBeUndefined();
    }
  });

  it('grants every scope to a static token', () => {
    const principal = verifier.verify('first-token-0123456789');

    expect(principal?.hasScope('plants:read')).toBe(true);
    expect(principal?.hasScope('plants:write')).toBe(true);
  });

  it('accepts nothing when no token is configured', () => {
    expect(new StaticTokenVerifier([]).verify('first-token-0123456789')).toBeUndefined();
  });
});
