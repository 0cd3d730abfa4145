import { createHash } from 'node:crypto';

import { tokenLabel } from '../../src/core/auth/static-token.verifier.js';

/** The bearer token every test service accepts (see `startTestApp`). */
export const TEST_TOKEN = 'e2e-test-token-0123456789abcdef';

/** Who the test token is to logs and the audit trail: the label of a token its entry does not name. */
export const TEST_TOKEN_ACTOR = `token:${tokenLabel({ sha256: createHash('sha256').update(TEST_TOKEN).digest() })}`;
