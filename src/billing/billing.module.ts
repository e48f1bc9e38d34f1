import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuditModule } from '../audit/audit.module';
import { WebhookEventsModule } from '../webhooks/events/webhook-events.module';
import { AutoReloadSettingsService } from './auto-reload-settings.service';
import { LedgerEntry } from './ledger-entry.entity';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';

/**
 * Balances and the ledger. The transcription money lifecycle (BillingGate, TranscriptionBilling) is provided
 * by the transcriptions module, which binds the gate's WorkspaceJobHistory port to its repository: billing
 * imports nothing from transcriptions.
 */
@Module({
  imports: [TypeOrmModule.forFeature([LedgerEntry]), WebhookEventsModule, AuditModule],
  providers: [LedgerRepository, LedgerService, AutoReloadSettingsService],
  exports: [LedgerRepository, LedgerService, AutoReloadSettingsService],
})
export class BillingModule {}
