import { Module } from '@nestjs/common';
import { EngineModule } from '../engine/engine.module';
import { TiersController } from './tiers.controller';
import { TiersService } from './tiers.service';

@Module({
  imports: [EngineModule],
  controllers: [TiersController],
  providers: [TiersService],
})
export class TiersModule {}
