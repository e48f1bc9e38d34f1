import { IsIn } from 'class-validator';

/** The JSON logger. Property names are the environment variable names. */
export class LoggingConfig {
  @IsIn(['fatal', 'error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'log' | 'debug' | 'verbose' = 'log';
}
