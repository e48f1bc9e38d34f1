import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

export class UsageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt({ message: 'months must be a whole number' })
  @Min(1)
  @Max(12)
  months = 6;
}
