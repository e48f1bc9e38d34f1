import { Transform } from 'class-transformer';
import { isIP } from 'node:net';
import {
  IsInt,
  IsUrl,
  Max,
  Min,
  Validate,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { toInt, toList } from '../../config/config-transformers';
import type { LingerBounds } from './lingering-close';

/** Express `trust proxy`: no proxy, the number of trusted hops, or the trusted proxies' addresses. */
export type TrustProxy = false | number | string[];

const NAMED_PROXY_RANGES = ['loopback', 'linklocal', 'uniquelocal'];

const toTrustProxy = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (['', 'false', 'no'].includes(trimmed.toLowerCase())) return false;
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  return toList({ value: trimmed });
};

function isAddressOrRange(entry: string): boolean {
  if (NAMED_PROXY_RANGES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

@ValidatorConstraint({ name: 'trustProxySetting' })
class TrustProxySetting implements ValidatorConstraintInterface {
  validate(value: unknown): boolean {
    if (value === false) return true;
    if (typeof value === 'number') return Number.isInteger(value) && value >= 0 && value <= 10;
    return (
      Array.isArray(value) && value.length > 0 && value.every((entry) => isAddressOrRange(String(entry)))
    );
  }

  defaultMessage(): string {
    return 'TRUST_PROXY must be false, a hop count (0 to 10), or comma-separated IP addresses/CIDRs of the proxies (or loopback, linklocal, uniquelocal); true is refused';
  }
}

/**
 * The HTTP server: its port, the proxies it trusts, browser origins and the limits on slow requests.
 * Property names are the environment variable names.
 */
export class HttpConfig {
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT = 3000;

  /**
   * Which peers may tell the client address with `X-Forwarded-For` (Express `trust proxy`), for the per-IP
   * limit of unauthenticated calls: `false` (the default: the socket peer is the client, the header is
   * ignored), a hop count (`1`: one load balancer in front), or comma-separated addresses and CIDRs of the
   * balancers (`10.0.0.0/8, 192.0.2.7`; also `loopback`, `linklocal`, `uniquelocal`). `true` (trust any
   * peer) is refused: whoever can reach the service could then pick a fresh budget per request.
   */
  @Transform(toTrustProxy)
  @Validate(TrustProxySetting)
  TRUST_PROXY: TrustProxy = false;

  /**
   * Origins (`https://app.example`, comma-separated) allowed to call the API from a browser. Empty, the
   * default: no CORS headers at all, so browsers keep other sites' pages from reading any answer.
   */
  @Transform(toList)
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }, { each: true })
  CORS_ORIGINS: string[] = [];

  /**
   * A connection that sends nothing for this long while its request (headers or body) is incomplete is
   * answered 408 `request-timeout` and closed; a steady slow upload keeps it alive however long it takes.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  HTTP_IDLE_TIMEOUT_MS = 30_000;

  /** The whole request head must arrive within this time (Node's headersTimeout; slowloris trickles). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  HTTP_HEADERS_TIMEOUT_MS = 20_000;

  /** Upper bound on receiving one whole request, body included (Node's requestTimeout; 0 = none). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  HTTP_REQUEST_TIMEOUT_MS = 3_600_000;

  /**
   * An upload refused before its body is read (from its head or first field) is answered at once; the
   * connection then keeps reading and dropping the body, up to this many bytes after the refusal, so that
   * clients which read the answer only once their body is sent see it (lingering close). Past it the connection
   * is cut. Default 32 MiB: well above the bodies of typical API clients, well below the 500 MB upload limit.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  HTTP_LINGER_MAX_BYTES = 32 * 1024 * 1024;

  /** The same lingering read lasts at most this long after the answer (a slow client's body is cut then). */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  HTTP_LINGER_MAX_MS = 30_000;
}

/** The lingering-close bounds of this configuration (lingering-close.ts). */
export function lingerBounds(config: HttpConfig): LingerBounds {
  return { maxBytes: config.HTTP_LINGER_MAX_BYTES, maxMs: config.HTTP_LINGER_MAX_MS };
}
