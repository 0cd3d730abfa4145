import { createHmac, randomBytes } from 'node:crypto';

import { Webhook, WebhookVerificationError } from 'standardwebhooks';

import { readEnvironment } from '../config/environment.js';
import { decodeWebhookSecret, webhookConfig, WebhookEnvironment } from '../config/webhook.config.js';
import { signWebhook } from './webhook-signature.js';

const whsec = (key: Buffer) => `whsec_${key.toString('base64')}`;

describe('webhook signatures (Standard Webhooks)', () => {
  const key = randomBytes(32);
  const eventId = '5f0c8a9e-2d1b-4c8e-9a51-0f6f3f2b7c11';
  const body = '{"id":9223372036854775807,"name":"Fern"}';
  const now = Math.floor(Date.now() / 1000);

  function headers(signature: string, id = eventId, timestamp = now) {
    return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
  }

  it('signs as the Standard Webhooks library verifies, over the id, the timestamp and the body', () => {
    const signature = signWebhook([key], eventId, now, body);

    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(whsec(key)).verify(body, headers(signature))).toStrictEqual(JSON.parse(body));
  });

  it('signs the id: the same signature under another id, timestamp or body is refused', () => {
    const signature = signWebhook([key], eventId, now, body);
    const receiver = new Webhook(whsec(key));

    expect(() => receiver.verify(body, headers(signature, '0e0f3a4c-7a0e-4d7c-9f5e-2b8a1c3d4e5f'))).toThrow(
      WebhookVerificationError,
    );
    expect(() => receiver.verify(body, headers(signature, eventId, now - 1))).toThrow(
      WebhookVerificationError,
    );
    expect(() => receiver.verify(body.replace('Fern', 'Moss'), headers(signature))).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(whsec(randomBytes(32))).verify(body, headers(signature))).toThrow(
      WebhookVerificationError,
    );
  });

  it('signs with every key, space-separated, so that a receiver on either key accepts the delivery', () => {
    const next = randomBytes(48);
    const signature = signWebhook([key, next], eventId, now, body);

    expect(signature.split(' ')).toHaveLength(2);
    expect(() => new Webhook(whsec(key)).verify(body, headers(signature))).not.toThrow();
    expect(() => new Webhook(whsec(next)).verify(body, headers(signature))).not.toThrow();
  });

  it('keeps the key of a plain secret converted to whsec_ and its base64: the same HMAC as before', () => {
    const plain = 'a-webhook-secret-of-at-least-32-characters';
    const converted = `whsec_${Buffer.from(plain).toString('base64')}`;
    const [signature] = signWebhook([decodeWebhookSecret(converted)!], eventId, now, body).split(' ');

    const before = createHmac('sha256', plain).update(`${eventId}.${now}.${body}`).digest('base64');
    expect(signature).toBe(`v1,${before}`);
  });
});

describe('WEBHOOK_SECRET', () => {
  const environment = (secret: string) => ({
    WEBHOOK_URLS: 'https://hooks.example.com/',
    WEBHOOK_SECRET: secret,
  });

  function problems(secret: string): string {
    try {
      readEnvironment(WebhookEnvironment, environment(secret));
    } catch (error) {
      return (error as Error).message;
    }
    return '';
  }

  it('accepts whsec_ secrets of 24 to 64 bytes, several of them comma-separated, in order', () => {
    const keys = [randomBytes(24), randomBytes(64)];
    const env = environment(`${whsec(keys[0])}, ${whsec(keys[1])}`);
    const saved = process.env;
    process.env = { ...env, NODE_ENV: 'test' };
    try {
      expect(webhookConfig().signingKeys).toStrictEqual(keys);
    } finally {
      process.env = saved;
    }
  });

  it('refuses a plain secret, telling how to keep its key, without printing it', () => {
    const plain = 'a-webhook-secret-of-at-least-32-characters';
    const message = problems(plain);

    expect(message).toContain('WEBHOOK_SECRET entry 1 is not a Standard Webhooks secret');
    expect(message).toContain(`printf %s "$OLD_SECRET" | base64 | tr -d '\\n'`);
    expect(message).not.toContain(plain);
  });

  it('refuses keys shorter than 24 or longer than 64 bytes, naming the entry', () => {
    expect(problems(whsec(randomBytes(23)))).toContain(
      'WEBHOOK_SECRET entry 1 must encode a key of 24 to 64 bytes',
    );
    expect(problems(`${whsec(randomBytes(32))},${whsec(randomBytes(65))}`)).toContain(
      'WEBHOOK_SECRET entry 2 must encode a key of 24 to 64 bytes',
    );
  });

  it('refuses base64 that is not exact: unpadded, another alphabet, stray bits, nothing', () => {
    const encoded = randomBytes(32).toString('base64');
    for (const secret of [
      `whsec_${encoded.replace(/=+$/, '')}`,
      `whsec_${randomBytes(32).toString('base64url').replace(/^./, '-')}`,
      `whsec_${encoded.slice(0, -2)}B=`,
      'whsec_',
    ]) {
      expect(problems(secret)).toContain('WEBHOOK_SECRET entry 1 is not valid padded base64 after whsec_');
    }
  });

  it('refuses a list with no secret in it', () => {
    expect(problems(' , ')).toContain('WEBHOOK_SECRET must list one or more secrets');
  });
});
