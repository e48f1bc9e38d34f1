import { Transform } from 'class-transformer';
import { IsBoolean, IsNumber, Min } from 'class-validator';
import { toFloat, toStrictBool } from '../config/config-transformers';

/**
 * Prices, the balance a job needs, free and unbilled allowances. Property names are the environment variable
 * names.
 */
export class BillingConfig {
  /**
   * `false` for a team running the service for itself: no 402, nothing is charged (costs and estimates 0,
   * no ledger debits, so no balance.low), free transcriptions are not consumed; usage still counts minutes.
   * The one switch is in TranscriptionBilling.
   */
  @Transform(toStrictBool)
  @IsBoolean({ message: 'BILLING_ENABLED must be true or false' })
  BILLING_ENABLED = true;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  PRICE_STANDARD_EUR_PER_MINUTE = 0.003;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  PRICE_PREMIUM_EUR_PER_MINUTE = 0.0045;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  PRICE_PREMIUM_JADE_EUR_PER_MINUTE = 0.006;

  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  MINIMUM_BALANCE_EUR = 0.01;

  /** A free transcription covers audio up to this long; a longer file is paid from the balance. */
  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  FREE_TRANSCRIPTION_MAX_MINUTES = 30;

  /**
   * Failed transcriptions are never billed: a workspace whose failed jobs hold this many minutes of audio in
   * the last 24 hours gets 429 `unbilled-processing-limit` for new jobs until older failures age out.
   */
  @Transform(toFloat)
  @IsNumber()
  @Min(0)
  UNBILLED_AUDIO_MINUTES_PER_DAY = 120;
}
