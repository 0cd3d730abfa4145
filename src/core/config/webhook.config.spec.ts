import { readEnvironment } from './environment.js';
import { WebhookEnvironment } from './webhook.config.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

function read(env: Record<string, string>) {
  return () => readEnvironment(WebhookEnvironment, { WEBHOOK_SECRET: SECRET, ...env });
}

describe('WEBHOOK_URLS', () => {
  it('must be https:// in production, except to loopback, naming the entries and never echoing them', () => {
    const urls = 'https://hooks.example.com/a,http://user:pa55@hooks.example.com/b,http://10.0.0.7/c';

    expect(read({ NODE_ENV: 'production', WEBHOOK_URLS: urls })).toThrow(
      'WEBHOOK_URLS must list https:// URLs with NODE_ENV=production (http:// only to loopback); entries 2, 3 are not',
    );
    expect(read({ NODE_ENV: 'production', WEBHOOK_URLS: urls })).not.toThrow(/pa55|example|10\.0\.0\.7/);
  });

  it('may be http:// to this machine in production, and anywhere outside production', () => {
    const local =
      'http://127.0.0.1:9000/hooks,http://localhost/hooks,http://[::1]:8080/hooks,https://hooks.example.com';

    expect(read({ NODE_ENV: 'production', WEBHOOK_URLS: local })).not.toThrow();
    expect(read({ NODE_ENV: 'development', WEBHOOK_URLS: 'http://hooks.example.com' })).not.toThrow();
    // A host that only starts like loopback is not loopback.
    expect(read({ NODE_ENV: 'production', WEBHOOK_URLS: 'http://127.0.0.1.example.com/' })).toThrow(
      /entry 1 is not/,
    );
  });
});

describe('WEBHOOK_SECRET', () => {
  it('takes up to eight keys, so that the signature header it makes stays bounded', () => {
    const keys = (count: number) =>
      Array.from({ length: count }, (_, index) => `whsec_${Buffer.alloc(32, index).toString('base64')}`);

    expect(read({ WEBHOOK_SECRET: keys(8).join(',') })).not.toThrow();
    expect(read({ WEBHOOK_SECRET: keys(9).join(',') })).toThrow('WEBHOOK_SECRET must list at most 8 secrets');
  });
});
