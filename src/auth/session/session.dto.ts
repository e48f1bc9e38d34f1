import { IsEmail, IsString, MaxLength, MinLength, NotContains } from 'class-validator';
import { CodePointLength } from '../../common/validation/stored-text';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './password-hasher';

export class LoginDto {
  @IsString()
  @MinLength(1)
  @MaxLength(320)
  // PostgreSQL text cannot hold NUL: refused here (422) rather than failing the lookup (500).
  @NotContains('\u0000', { message: 'email must not contain NUL characters' })
  email: string;

  /** Not checked against the password rules here: a wrong password is 401, never a hint about the rules. */
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_PASSWORD_LENGTH)
  password: string;
}

export class SignupDto {
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email: string;

  @IsString()
  @CodePointLength(MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH, {
    message: `password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long`,
  })
  password: string;

  @IsString()
  @CodePointLength(1, 200, { message: 'workspaceName must be 1 to 200 characters long' })
  @NotContains('\u0000', { message: 'workspaceName must not contain NUL characters' })
  workspaceName: string;
}
