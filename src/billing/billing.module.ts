import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AutoReloadSettingsService } from './auto-reload-settings.service';
import { LedgerEntry } from './ledger-entry.entity';
import { LedgerService } from './ledger.service';

@Module({
  imports: [TypeOrmModule.forFeature([LedgerEntry])],
  providers: [LedgerService, AutoReloadSettingsService],
  exports: [LedgerService, AutoReloadSettingsService],
})
export class BillingModule {}
