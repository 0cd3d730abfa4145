import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditEvent } from './audit-event.entity.js';
import { AuditEventsController } from './audit-events.controller.js';
import { AuditEventsService } from './audit-events.service.js';
import { AuditRetention } from './audit-retention.js';

/**
 * The audit trail: its table, written by `recordAudit` in every change's own transaction, and
 * `GET /audit-events` to read it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent])],
  controllers: [AuditEventsController],
  providers: [AuditEventsService, AuditRetention],
  exports: [AuditRetention],
})
export class AuditModule {}
