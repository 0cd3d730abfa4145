import { describeRequeue, parseRequeueArguments, RequeueUsageError } from './dead-event-requeue.js';

const ID = '5f0c8a9e-2d1b-4c8e-9a51-0f6f3f2b7c11';
const OTHER = '0e0f3a4c-7a0e-4d7c-9f5e-2b8a1c3d4e5f';

describe('the requeue command line', () => {
  it('reads --all, or one or more --id, each id once and in lower case', () => {
    expect(parseRequeueArguments(['--all'])).toStrictEqual({ all: true });
    expect(parseRequeueArguments(['--id', ID.toUpperCase(), `--id=${OTHER}`, '--id', ID])).toStrictEqual({
      eventIds: [ID, OTHER],
    });
  });

  it('reads --unsubscribed as the subscribers the outbox names, without credentials, query or repeats', () => {
    expect(
      parseRequeueArguments([
        '--unsubscribed',
        'https://user:secret@hooks.example/plants?key=1',
        '--unsubscribed=https://hooks.example/plants',
      ]),
    ).toStrictEqual({ unsubscribed: ['https://hooks.example/plants'] });
  });

  it('refuses nothing, two selections, an unknown option, a stray word, a bad id or subscriber', () => {
    for (const args of [
      [],
      ['--all', '--id', ID],
      ['--id', ID, '--unsubscribed', 'https://hooks.example/'],
      ['--everything'],
      ['--all', 'now'],
      ['--id', '42'],
      ['--unsubscribed', 'ftp://hooks.example/'],
    ]) {
      expect(() => parseRequeueArguments(args)).toThrow(RequeueUsageError);
    }
  });

  it('names no URL it refuses, which may carry a password', () => {
    const refusal = (() => {
      try {
        parseRequeueArguments(['--unsubscribed', 'ftp://user:secret@hooks.example/']);
      } catch (error) {
        return error as Error;
      }
    })();
    expect(refusal).toBeInstanceOf(RequeueUsageError);
    expect(refusal?.message).toBe('Not an http:// or https:// URL: 1 of --unsubscribed');
  });

  it('says what it did, and names each event it could not re-queue', () => {
    expect(describeRequeue({ state: 'dead', deliveries: 0, eventIds: new Set(), notDead: [] })).toStrictEqual(
      ['No dead webhook delivery to re-queue'],
    );
    expect(
      describeRequeue({ state: 'dead', deliveries: 3, eventIds: new Set([ID, OTHER]), notDead: [] }),
    ).toStrictEqual(['Re-queued 3 dead webhook deliveries of 2 event(s): they will be delivered again']);
    expect(
      describeRequeue({ state: 'unsubscribed', deliveries: 2, eventIds: new Set([ID, OTHER]), notDead: [] }),
    ).toStrictEqual([
      'Re-queued 2 unsubscribed webhook deliveries of 2 event(s): they will be delivered again',
    ]);
    expect(
      describeRequeue({ state: 'dead', deliveries: 1, eventIds: new Set([ID]), notDead: [OTHER] })[1],
    ).toBe(`Event ${OTHER} has no dead delivery (unknown, pending, delivered or deleted): nothing re-queued`);
  });
});
