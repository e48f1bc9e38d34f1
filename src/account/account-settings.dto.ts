import { Type } from 'class-transformer';
import { IsInt, IsNumber, IsObject, Max, Min, ValidateIf, ValidateNested } from 'class-validator';
import { IfPresent } from '../common/validation/if-present';

/** Present and not null: null is a value here (keep forever). */
const IfDays = () => ValidateIf((_object: object, value: unknown) => value !== undefined && value !== null);

/** Up to 100 years; null keeps forever. */
const MAX_RETENTION_DAYS = 36_500;

export class RetentionSettingsDto {
  @IfDays()
  @IsInt({ message: 'audioDays must be a whole number of days or null' })
  @Min(0)
  @Max(MAX_RETENTION_DAYS)
  audioDays?: number | null;

  @IfDays()
  @IsInt({ message: 'transcriptDays must be a whole number of days or null' })
  @Min(0)
  @Max(MAX_RETENTION_DAYS)
  transcriptDays?: number | null;
}

export class UpdateAccountSettingsDto {
  @IfPresent()
  // Any finite number the schema allows: it is stored to the micro-euro, rounded (eurToMicro). A limit on
  // decimal places would refuse values that openapi.yaml accepts (the fuzz suite found 835736.7743737996).
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(1_000_000)
  lowBalanceThreshold?: number;

  @IfPresent()
  @IsObject({ message: 'retention must be an object' })
  @ValidateNested()
  @Type(() => RetentionSettingsDto)
  retention?: RetentionSettingsDto;
}
