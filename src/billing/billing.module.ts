import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { WebhookEventsModule } from '../webhooks/events/webhook-events.module';
import { AutoReloadSettingsService } from './auto-reload-settings.service';
import { BillingGate } from './billing-gate.service';
import { LedgerEntry } from './ledger-entry.entity';
import { LedgerService } from './ledger.service';
import { TranscriptionBilling } from './transcription-billing.service';

@Module({
  imports: [TypeOrmModule.forFeature([LedgerEntry]), WebhookEventsModule],
  providers: [LedgerService, AutoReloadSettingsService, BillingGate, TranscriptionBilling],
  exports: [LedgerService, AutoReloadSettingsService, TranscriptionBilling],
})
export class BillingModule {}
