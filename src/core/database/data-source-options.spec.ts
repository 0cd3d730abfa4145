import { describe, expect, it } from '@jest/globals';

import { buildDataSourceOptions, sessionOptions } from './data-source-options.js';

describe('sessionOptions', () => {
  it('runs sessions without JIT, leaving a URL without options as it is', () => {
    const url = 'postgres://app:s3cret@db.internal:5432/plants?sslmode=require';

    expect(sessionOptions(url)).toStrictEqual({ url, options: '-c jit=off' });
  });

  it("keeps the URL's own options, moved out of the URL, with the service's after them", () => {
    expect(
      sessionOptions(
        'postgres://app:p%40ss@db.internal/plants?options=-c%20search_path%3Dapp&sslmode=require',
      ),
    ).toStrictEqual({
      url: 'postgres://app:p%40ss@db.internal/plants?sslmode=require',
      options: '-c search_path=app -c jit=off',
    });
  });

  it('leaves JIT as the URL sets it, in either spelling', () => {
    for (const own of ['-c jit=on', '-c search_path=app -cjit=on', '--jit=on']) {
      const url = `postgresql://app@db.internal/plants?options=${encodeURIComponent(own)}`;

      expect(sessionOptions(url)).toStrictEqual({ url: 'postgresql://app@db.internal/plants', options: own });
    }
  });

  it('leaves a URL it cannot read to the driver', () => {
    const url = 'postgres://app:pa ss@[db/plants?options=-c%20jit%3Don';

    expect(sessionOptions(url)).toStrictEqual({ url, options: '-c jit=off' });
  });

  it('gives the connection both', () => {
    const options = buildDataSourceOptions({
      url: 'postgres://app@db.internal/plants?options=-c%20work_mem%3D8MB',
      migrations: [],
      poolSize: 4,
    });

    expect(options).toMatchObject({
      url: 'postgres://app@db.internal/plants',
      extra: { options: '-c work_mem=8MB -c jit=off' },
    });
  });
});
