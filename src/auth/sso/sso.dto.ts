import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  MinLength,
} from 'class-validator';

export const SSO_DEFAULT_ROLES = ['admin', 'member', 'viewer'] as const;
export const MAX_ALLOWED_DOMAINS = 50;

/** `PUT /v1/workspace/sso`: the whole setting (a PUT replaces it); the client secret may be left out to keep it. */
export class PutSsoConnectionDto {
  @IsUrl(
    { require_tld: false, protocols: ['http', 'https'], require_protocol: true },
    { message: 'issuer must be an absolute http(s) URL' },
  )
  @MaxLength(2048)
  issuer: string;

  @IsString()
  @MinLength(1)
  @MaxLength(255)
  @Matches(/^[\x21-\x7e]+$/, { message: 'clientId must be printable ASCII without spaces' })
  clientId: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(1024)
  @Matches(/^[\x20-\x7e]+$/, { message: 'clientSecret must be printable ASCII' })
  clientSecret?: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ALLOWED_DOMAINS)
  @Matches(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i, {
    each: true,
    message: 'each allowed domain must be a domain name such as example.com',
  })
  allowedDomains: string[];

  @IsOptional()
  @IsIn(SSO_DEFAULT_ROLES, { message: `defaultRole must be one of ${SSO_DEFAULT_ROLES.join(', ')}` })
  defaultRole?: (typeof SSO_DEFAULT_ROLES)[number];

  @IsOptional()
  @IsBoolean()
  ssoRequired?: boolean;
}
