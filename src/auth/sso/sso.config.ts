import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsUrl } from 'class-validator';
import { toBool } from '../../config/config-transformers';

/** Single sign-on (OpenID Connect). Property names are the environment variable names. */
export class SsoConfig {
  /**
   * The service's public origin as browsers reach it (`https://stt.example.com`): the SSO callback a
   * workspace registers at its provider is `<PUBLIC_URL>/v1/auth/sso/callback`. Unset: SSO cannot be set up
   * (the settings route answers 422), since a callback derived from the request's Host header could be forged.
   */
  @IsOptional()
  @Transform(({ value }) =>
    value === '' || value === undefined ? undefined : String(value).replace(/\/+$/, ''),
  )
  @IsUrl(
    { require_tld: false, protocols: ['http', 'https'], require_protocol: true },
    { message: 'PUBLIC_URL must be an absolute http(s) URL' },
  )
  PUBLIC_URL?: string;

  /**
   * Lets an issuer use http:// and loopback or private addresses (tests, local development, an identity
   * provider on the operator's own network). Off: an issuer must be https on a public address.
   */
  @Transform(toBool)
  @IsBoolean()
  SSO_ALLOW_PRIVATE_ISSUERS = false;
}
