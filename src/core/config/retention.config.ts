import { registerAs, type ConfigType } from '@nestjs/config';

import { Environment, IntegerVariable, readEnvironment } from './environment.js';

/** How long the audit trail and soft-deleted records are kept (docs/operations.md#retention). */
@Environment()
export class RetentionEnvironment {
  /** 0 keeps every event for ever. */
  @IntegerVariable(0, 36_500)
  AUDIT_RETENTION_DAYS = 0;

  /** 0 keeps soft-deleted records until someone deletes them by hand. */
  @IntegerVariable(0, 36_500)
  SOFT_DELETE_RETENTION_DAYS = 30;
}

export const retentionConfig = registerAs('retention', () => {
  const env = readEnvironment(RetentionEnvironment);
  return {
    auditRetentionDays: env.AUDIT_RETENTION_DAYS,
    softDeleteRetentionDays: env.SOFT_DELETE_RETENTION_DAYS,
  };
});

export type RetentionConfig = ConfigType<typeof retentionConfig>;
