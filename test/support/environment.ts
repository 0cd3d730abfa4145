/** The bearer token every test service accepts (see `startTestApp`). */
export const TEST_TOKEN = 'e2e-test-token-0123456789abcdef';
