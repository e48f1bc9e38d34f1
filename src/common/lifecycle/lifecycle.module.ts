import { Global, Module } from '@nestjs/common';
import { ShutdownCoordinator } from './shutdown-coordinator';

@Global()
@Module({ providers: [ShutdownCoordinator], exports: [ShutdownCoordinator] })
export class LifecycleModule {}
