import { Type } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  NotContains,
} from 'class-validator';
import type { ModelTier } from '../common/model-tier-catalogue';
import { MODEL_TIERS, TRANSCRIPTION_STATUSES, TranscriptionStatus } from './transcription.entity';

export class ListTranscriptionsQueryDto {
  @IsOptional()
  @IsUUID('all', { message: 'cursor must be a transcription id from a previous page' })
  cursor?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 20;

  @IsOptional()
  @IsIn(TRANSCRIPTION_STATUSES, { message: `status must be one of ${TRANSCRIPTION_STATUSES.join(', ')}` })
  status?: TranscriptionStatus;

  @IsOptional()
  @IsIn(MODEL_TIERS, { message: `model must be one of ${MODEL_TIERS.join(', ')}` })
  model?: ModelTier;

  @IsOptional()
  @IsString()
  // `search=` (empty) is a mistake like any other invalid query (the schema's minLength 1), not "no filter".
  @MinLength(1, { message: 'search must not be empty (leave the parameter out to list everything)' })
  @MaxLength(200)
  // PostgreSQL text cannot hold NUL; without this the query fails with a 500.
  @NotContains('\u0000', { message: 'search must not contain NUL characters' })
  search?: string;
}
