import { Global, Module } from '@nestjs/common';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { LoggingConfig } from './logging.config';
import { ProcessConfig } from '../lifecycle/process.config';
import { LogContext, ROOT_LOGGER } from './log-context';
import { createRootLogger, httpLogOptions } from './log-format';

@Global()
@Module({
  providers: [
    {
      provide: ROOT_LOGGER,
      inject: [LoggingConfig, ProcessConfig],
      useFactory: (config: LoggingConfig, processConfig: ProcessConfig) =>
        createRootLogger(config, processConfig),
    },
  ],
  exports: [ROOT_LOGGER],
})
class RootLoggerModule {}

/**
 * Structured JSON logs (nestjs-pino): every Nest `Logger` call of the process goes to one pino logger (see
 * bootstrap.ts `useLogger`), each HTTP request logs one line, and lines written while serving a request or
 * running the work it caused carry its request id (docs/decisions.md, "Structured logs").
 */
@Global()
@Module({
  imports: [
    RootLoggerModule,
    LoggerModule.forRootAsync({
      inject: [ROOT_LOGGER],
      // '*path' like the other global middleware: nestjs-pino's default ({path: '*', method: ALL}) mounts a
      // route, which leaves `request.route` set on requests no handler matched (metrics label them by it).
      useFactory: (root: Logger) => ({ pinoHttp: httpLogOptions(root), forRoutes: ['*path'] }),
    }),
  ],
  providers: [LogContext],
  exports: [LogContext],
})
export class LoggingModule {}
