import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { EngineModule } from '../engine/engine.module';
import { HealthController } from './health.controller';
import { ReadinessService } from './readiness.service';

// Terminus logs nothing itself: a failing probe is the caller's 503, not an error of this process.
@Module({
  imports: [TerminusModule.forRoot({ logger: false }), EngineModule],
  controllers: [HealthController],
  providers: [ReadinessService],
})
export class HealthModule {}
