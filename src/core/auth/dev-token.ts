import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

export const DEV_TOKEN_FILE = '.data/dev-token';

/** The token a development instance accepts when none is configured; `undefined` otherwise. */
export const DEV_TOKEN = Symbol('DEV_TOKEN');

/**
 * Outside production, an instance without configured tokens still needs one
 * to be usable: a random token, made once and kept (readable by its owner
 * only) so that it survives restarts.
 */
export async function loadOrCreateDevToken(file = DEV_TOKEN_FILE): Promise<string> {
  try {
    const saved = (await readFile(file, 'utf8')).trim();
    if (saved) {
      return saved;
    }
  } catch {
    // Not made yet.
  }
  const token = randomBytes(32).toString('base64url');
  await mkdir(dirname(file), { recursive: true, mode: 0o755 });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return token;
}
