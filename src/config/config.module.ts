import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { Configuration } from './configuration';

/**
 * Provides each validated slice under its own class, to the whole application: a service asks for the slices
 * it reads (`constructor(private readonly config: BillingConfig)`), never for the whole configuration.
 */
@Global()
@Module({})
export class ConfigModule {
  static register(configuration: Configuration): DynamicModule {
    const providers: Provider[] = configuration.slices.map((slice) => ({
      provide: slice,
      useValue: configuration.get(slice),
    }));
    return {
      module: ConfigModule,
      providers,
      exports: configuration.slices,
    };
  }
}
