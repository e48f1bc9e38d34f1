import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { Configuration } from './configuration';

/**
 * Provides each validated slice under its own class, to the whole application: a service asks for the slices
 * it reads (`constructor(private readonly config: BillingConfig)`). The whole Configuration is provided too,
 * for the one reader that cannot name its slices in advance: the engine's tier resolution, which reads the
 * slices of whichever recognisers and diarizers are registered.
 */
@Global()
@Module({})
export class ConfigModule {
  static register(configuration: Configuration): DynamicModule {
    const providers: Provider[] = [
      { provide: Configuration, useValue: configuration },
      ...configuration.slices.map((slice) => ({ provide: slice, useValue: configuration.get(slice) })),
    ];
    return {
      module: ConfigModule,
      providers,
      exports: [Configuration, ...configuration.slices],
    };
  }
}
