import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';

/** Provides the one validated AppConfig instance to the whole application. */
@Global()
@Module({})
export class ConfigModule {
  static register(config: AppConfig): DynamicModule {
    return {
      module: ConfigModule,
      providers: [{ provide: AppConfig, useValue: config }],
      exports: [AppConfig],
    };
  }
}
