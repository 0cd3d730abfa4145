import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

import { InvalidConfigurationError } from '../config/configuration-error.js';

export const DEV_TOKEN_FILE = '.data/auth/dev-token';

/** The token a development instance accepts when none is configured; `undefined` otherwise. */
export const DEV_TOKEN = Symbol('DEV_TOKEN');

/** Permission bits for the group and for others: none may be set on the token or its directory. */
const SHARED_BITS = 0o077;

/**
 * Outside production with no tokens configured: a random token kept across restarts, 0600 in a 0700
 * directory. One that others could have read is refused, as it may have leaked.
 */
export async function loadOrCreateDevToken(file = DEV_TOKEN_FILE): Promise<string> {
  // A directory of its own: `.data` above it stays traversable, for the embedded PostgreSQL's server.
  const directory = dirname(file);
  await mkdir(dirname(directory), { recursive: true, mode: 0o755 });
  await mkdir(directory, { recursive: true, mode: 0o700 });
  // Made broader by hand, it is narrowed: it holds nothing but the token.
  if (((await stat(directory)).mode & SHARED_BITS) !== 0) {
    await chmod(directory, 0o700);
  }
  const kept = await stat(file).catch(() => undefined);
  if (kept) {
    if ((kept.mode & SHARED_BITS) !== 0) {
      throw InvalidConfigurationError.listing([
        `${file} may be read by others (mode ${(kept.mode & 0o777).toString(8)}): delete it for a new ` +
          'development token, or `chmod 600` it if nobody else could have read it',
      ]);
    }
    const saved = (await readFile(file, 'utf8')).trim();
    if (saved) {
      return saved;
    }
  }
  const token = randomBytes(32).toString('base64url');
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}
