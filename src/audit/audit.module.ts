import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditEvent } from './audit-event.entity';
import { AuditEventsController } from './audit-events.controller';
import { AuditEventsRepository } from './audit-events.repository';
import { AuditEventsService } from './audit-events.service';
import { AuditLog } from './audit-log.service';
import { AuditRetention } from './audit-retention.service';

/**
 * The audit log: its one writer (AuditLog, which every module that does a security-relevant act imports
 * this module for), the read-only routes and the retention of events.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent])],
  controllers: [AuditEventsController],
  providers: [AuditLog, AuditEventsRepository, AuditEventsService, AuditRetention],
  exports: [AuditLog, AuditRetention],
})
export class AuditModule {}
