import type { LoggerService } from '@nestjs/common';

/**
 * Nest's start-up lines that list every module ("… dependencies initialized") and every route ("Mapped {…}"):
 * about a hundred of them, which scrolled the quick start's demo credentials away. They stay available at
 * LOG_LEVEL=debug.
 */
const FRAMEWORK_DETAIL_CONTEXTS = new Set(['InstanceLoader', 'RoutesResolver', 'RouterExplorer']);

/** The process's Nest logger with the framework's per-module and per-route start-up lines moved to debug. */
export class FrameworkDetailAtDebug implements LoggerService {
  constructor(
    private readonly target: Pick<
      Required<LoggerService>,
      'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal'
    >,
  ) {}

  log(message: unknown, ...optionalParams: unknown[]): void {
    // Nest passes the logging class's name as the last parameter.
    const context = optionalParams.at(-1);
    if (typeof context === 'string' && FRAMEWORK_DETAIL_CONTEXTS.has(context)) {
      this.target.debug(message, ...optionalParams);
    } else {
      this.target.log(message, ...optionalParams);
    }
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.target.error(message, ...optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.target.warn(message, ...optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.target.debug(message, ...optionalParams);
  }

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.target.verbose(message, ...optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.target.fatal(message, ...optionalParams);
  }
}
