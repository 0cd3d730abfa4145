/** The configuration every e2e suite starts from; a suite may override a variable before it creates its app. */
export const TEST_TOKEN = 'e2e-test-token-0123456789abcdef';

process.env.NODE_ENV = 'test';
process.env.AUTH_TOKENS = TEST_TOKEN;
process.env.LOG_LEVEL ??= 'silent';
