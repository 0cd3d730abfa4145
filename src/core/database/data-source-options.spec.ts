import { describe, expect, it } from '@jest/globals';

import { buildDataSourceOptions } from './data-source-options.js';

describe('buildDataSourceOptions', () => {
  it('connects to the URL alone when there is no replica', () => {
    const url = 'postgres://app:s3cret@db.internal:5432/plants?sslmode=require';

    const options = buildDataSourceOptions({ url, migrations: [], poolSize: 4 });

    expect(options).toMatchObject({ url, poolSize: 4 });
    expect(options).not.toHaveProperty('replication');
  });

  it('sends reads to the primary unless asked, with replicas', () => {
    const options = buildDataSourceOptions({
      url: 'postgres://app@primary/plants',
      replicaUrls: ['postgres://app@standby-1/plants', 'postgres://app@standby-2/plants'],
      migrations: [],
      poolSize: 4,
    });

    expect(options).toMatchObject({
      replication: {
        master: { url: 'postgres://app@primary/plants' },
        slaves: [{ url: 'postgres://app@standby-1/plants' }, { url: 'postgres://app@standby-2/plants' }],
        defaultMode: 'master',
      },
    });
    expect(options).not.toHaveProperty('url');
  });
});
