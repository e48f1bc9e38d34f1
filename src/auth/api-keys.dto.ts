import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  NotContains,
} from 'class-validator';
import { MAX_ALLOWED_NETWORKS } from './allowed-networks';
import { SCOPES, type Scope } from '../common/principal/permission-table';
import { CodePointLength } from '../common/validation/stored-text';
import type { StatusFilter } from './api-key-request-log.service';

/** The longest expiry a key can be given at creation: ten years. */
export const MAX_API_KEY_EXPIRY_DAYS = 3650;

export class CreateApiKeyDto {
  @IsString()
  @CodePointLength(1, 100, { message: 'name must be 1 to 100 characters long' })
  @NotContains('\u0000', { message: 'name must not contain NUL characters' })
  name: string;

  @IsOptional()
  @IsInt({ message: 'expiresInDays must be a whole number of days' })
  @Min(1)
  @Max(MAX_API_KEY_EXPIRY_DAYS)
  expiresInDays?: number;

  /** Absent: every scope the creator's role allows. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1, { message: 'scopes must name at least one scope' })
  @ArrayUnique()
  @IsIn(SCOPES, { each: true, message: `each scope must be one of ${SCOPES.join(', ')}` })
  scopes?: Scope[];

  /** CIDR blocks the key is accepted from (checked by parseCidr in the service); absent or empty: any. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_ALLOWED_NETWORKS)
  @IsString({ each: true })
  allowedNetworks?: string[];
}

export class ListApiKeyRequestsQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit = 50;

  @IsOptional()
  @Matches(/^[1-5](?:xx|\d\d)$/, { message: 'status must be a status code (404) or a class (4xx)' })
  status?: string;
}

/** `404` → that code, `4xx` → the class. */
export function toStatusFilter(status: string | undefined): StatusFilter | undefined {
  if (status === undefined) return undefined;
  return status.endsWith('xx') ? { class: Number(status[0]) } : { code: Number(status) };
}
