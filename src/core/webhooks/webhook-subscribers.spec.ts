import { parseSubscriber, redactUrls, subscriberProblems } from './webhook-subscribers.js';

describe('a webhook subscriber', () => {
  it('is keyed by its origin and path, and sent to with its query string', () => {
    expect(parseSubscriber('HTTPS://Hooks.Example.com:443/plants?token=q-secret#part')).toStrictEqual({
      key: 'https://hooks.example.com/plants',
      url: 'https://hooks.example.com/plants?token=q-secret#part',
    });
    expect(parseSubscriber('http://127.0.0.1:9000').key).toBe('http://127.0.0.1:9000/');
  });

  it('turns credentials into Basic authorization, percent-decoded, and leaves them out of the URL and the key', () => {
    const subscriber = parseSubscriber('https://hook%40user:p%3Ass%20w0rd@hooks.example.com/plants?a=1');

    expect(subscriber).toStrictEqual({
      key: 'https://hooks.example.com/plants',
      url: 'https://hooks.example.com/plants?a=1',
      authorization: `Basic ${Buffer.from('hook@user:p:ss w0rd').toString('base64')}`,
    });
    expect(parseSubscriber('https://token@hooks.example.com/').authorization).toBe(
      `Basic ${Buffer.from('token:').toString('base64')}`,
    );
  });
});

describe('WEBHOOK_URLS entries', () => {
  it('are refused when not http(s), when their credentials cannot be decoded, or when two are one subscriber', () => {
    const problems = subscriberProblems([
      'https://hooks.example.com/plants',
      'ftp://user:pa55-one@hooks.example.com/',
      'https://user:%E0%A4%A@hooks.example.com/other',
      'https://user:pa55-two@hooks.example.com/plants?tenant=2',
    ]);

    expect(problems).toStrictEqual([
      'WEBHOOK_URLS entry 2 is not an http:// or https:// URL',
      'WEBHOOK_URLS entry 3 has credentials that are not valid percent-encoding',
      'WEBHOOK_URLS entries 1, 4 name the same subscriber (the same origin and path, which is what the outbox and the logs know it by): list it once',
    ]);
    expect(problems.join('\n')).not.toMatch(/pa55|tenant|%E0/);
  });

  it('are accepted when each is a subscriber of its own', () => {
    expect(
      subscriberProblems(['https://user:pa55@hooks.example.com/a', 'https://hooks.example.com/b?x=1']),
    ).toStrictEqual([]);
  });
});

describe('redactUrls', () => {
  it('cuts every URL in a text to its origin and path', () => {
    expect(
      redactUrls(
        'Request cannot be constructed from a URL that includes credentials: http://user:pa55@127.0.0.1:9/h?token=t0k then postgres://app:pw@db:5432/plants.',
      ),
    ).toBe(
      'Request cannot be constructed from a URL that includes credentials: http://127.0.0.1:9/h then postgres://db:5432/plants.',
    );
    expect(redactUrls('HTTP 503')).toBe('HTTP 503');
  });
});
