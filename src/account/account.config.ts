import { Transform } from 'class-transformer';
import { IsInt, IsNumber, Min } from 'class-validator';
import { toFloat, toInt } from '../config/config-transformers';

/** What a new workspace starts with. Property names are the environment variable names. */
export class AccountConfig {
  @Transform(toInt)
  @IsInt()
  @Min(0)
  DEFAULT_FREE_TRANSCRIPTIONS = 3;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  DEFAULT_LOW_BALANCE_THRESHOLD_EUR = 1;
}
