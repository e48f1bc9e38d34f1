import { IsUrl } from 'class-validator';

/** Problem details answers (RFC 9457). Property names are the environment variable names. */
export class ProblemConfig {
  @IsUrl({ require_tld: false, require_protocol: true })
  ERRORS_BASE_URL = 'https://errors.transcription.example/problems';
}
