import pg from 'pg';

export type PoolRole = 'primary' | 'replica';

export interface PoolCounts {
  readonly role: PoolRole;
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
}

/**
 * TypeORM takes the `pg` module as its `driver` option; this one's `Pool`, pg's own, records each
 * pool made, so that the metrics can count their connections.
 */
export class DatabasePools {
  readonly driver: typeof pg;
  private readonly pools = new Map<pg.Pool, PoolRole>();

  constructor(primaryUrl: string) {
    const pools = this.pools;
    class RecordedPool extends pg.Pool {
      constructor(config?: pg.PoolConfig) {
        super(config);
        pools.set(this, config?.connectionString === primaryUrl ? 'primary' : 'replica');
      }
    }
    this.driver = { ...pg, Pool: RecordedPool };
  }

  /** Each pool's connections: in use (total − idle), idle, and requests waiting for one. */
  counts(): PoolCounts[] {
    return [...this.pools].map(([pool, role]) => ({
      role,
      total: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }));
  }
}
