import { Module } from '@nestjs/common';

import { AuditModule } from '../audit/audit.module.js';
import { RetentionTask } from './retention.task.js';

/** The periodic removal of what has outlived its retention: the outbox's, the audit trail's, soft deletes'. */
@Module({
  imports: [AuditModule],
  providers: [RetentionTask],
})
export class RetentionModule {}
