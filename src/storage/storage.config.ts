import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, IsUrl, MinLength, ValidateIf } from 'class-validator';
import { toBool } from '../config/config-transformers';

export const STORAGE_DRIVERS = ['local', 's3'] as const;
export type StorageDriver = (typeof STORAGE_DRIVERS)[number];

/** Where uploaded audio is kept. Property names are the environment variable names. */
export class StorageConfig {
  @IsString()
  @MinLength(1)
  STORAGE_DIR = './var/storage';

  /** Where uploads live: `local` (STORAGE_DIR) or `s3` (any S3-compatible store, shared across machines). */
  @IsIn(STORAGE_DRIVERS)
  STORAGE_DRIVER: StorageDriver = 'local';

  /** S3 endpoint URL for MinIO and other S3-compatible stores; unset means AWS S3 of S3_REGION. */
  @IsOptional()
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] })
  S3_ENDPOINT?: string;

  @IsString()
  @MinLength(1)
  S3_REGION = 'us-east-1';

  /** Required with STORAGE_DRIVER=s3; the bucket must exist. */
  @ValidateIf((config: StorageConfig) => config.STORAGE_DRIVER === 's3' || config.S3_BUCKET !== undefined)
  @IsString()
  @MinLength(1, { message: 'S3_BUCKET is required when STORAGE_DRIVER=s3' })
  S3_BUCKET?: string;

  /** Static credentials; both or neither (neither: the AWS default chain, e.g. an instance role). */
  @ValidateIf(
    (config: StorageConfig) =>
      config.S3_ACCESS_KEY_ID !== undefined || config.S3_SECRET_ACCESS_KEY !== undefined,
  )
  @IsString()
  @MinLength(1, { message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together' })
  S3_ACCESS_KEY_ID?: string;

  @ValidateIf(
    (config: StorageConfig) =>
      config.S3_ACCESS_KEY_ID !== undefined || config.S3_SECRET_ACCESS_KEY !== undefined,
  )
  @IsString()
  @MinLength(1, { message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together' })
  S3_SECRET_ACCESS_KEY?: string;

  /** Path-style URLs (endpoint/bucket/key), needed by most self-hosted stores (MinIO, emulators). */
  @Transform(toBool)
  @IsBoolean()
  S3_FORCE_PATH_STYLE = false;
}
