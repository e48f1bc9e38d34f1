import { IsEmail, IsIn, IsOptional, IsString, MaxLength, MinLength, NotContains } from 'class-validator';
import { ROLES, type Role } from '../../common/principal/permission-table';
import { CodePointLength } from '../../common/validation/stored-text';

export class CreateInvitationDto {
  @IsEmail({}, { message: 'email must be an email address' })
  @MaxLength(320)
  email: string;

  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}

export class UpdateMemberDto {
  @IsIn(ROLES, { message: `role must be one of ${ROLES.join(', ')}` })
  role: Role;
}

export class AcceptInvitationDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  token: string;

  @IsString()
  @MaxLength(1024)
  password: string;

  @IsOptional()
  @IsString()
  @CodePointLength(1, 200, { message: 'name must be 1 to 200 characters long' })
  @NotContains('\u0000', { message: 'name must not contain NUL characters' })
  name?: string;
}
