import { IsUrl } from 'class-validator';

/** The PostgreSQL database. Property names are the environment variable names. */
export class DatabaseConfig {
  @IsUrl({ protocols: ['postgres', 'postgresql'], require_tld: false })
  DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/transcription';
}
