/**
 * What a per-job callback may ask of the service beside its URL (the URL is the webhook target policy's): the
 * method, and one header of the caller's naming and value (AssemblyAI's `webhook_auth_header_*`). The rules keep
 * a tenant from making the service send a request other than one JSON body to one URL: no header that frames
 * the request, routes it or speaks for this service.
 */

/** An HTTP field name (RFC 9110 token). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Visible ASCII, spaces and tabs (RFC 9110 field value without obs-text): no CR, LF or NUL. */
const FIELD_VALUE_CHARACTERS = /^[\x20-\x7e\t]*$/;
/** Spaces or tabs around a value (RFC 9110: not part of it). */
const EDGE_WHITESPACE = /^[ \t]|[ \t]$/;

export const MAX_CALLBACK_HEADER_NAME_LENGTH = 100;
export const MAX_CALLBACK_HEADER_VALUE_LENGTH = 2000;
/** The longest callback URL taken (the same order as a stored webhook endpoint's). */
export const MAX_CALLBACK_URL_LENGTH = 2048;

/**
 * Headers the service sets on every delivery or that frame, route or authenticate the connection: a tenant's
 * header may not replace them. Compared lower-cased; `x-service-` is the prefix of the service's own headers.
 */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'te',
  'trailer',
  'connection',
  'keep-alive',
  'upgrade',
  'expect',
  'proxy-authorization',
  'proxy-connection',
  'user-agent',
  'x-request-id',
]);

export type CallbackHeaderVerdict = { ok: true } | { ok: false; reason: string };

/** Whether `name` may be the callback's own header (null: none asked). */
export function checkCallbackHeaderName(name: string): CallbackHeaderVerdict {
  if (name.length === 0 || name.length > MAX_CALLBACK_HEADER_NAME_LENGTH || !TOKEN.test(name)) {
    return {
      ok: false,
      reason: `must be an HTTP header name (letters, digits and !#$%&'*+.^_\`|~-) of at most ${MAX_CALLBACK_HEADER_NAME_LENGTH} characters`,
    };
  }
  const lower = name.toLowerCase();
  if (RESERVED_HEADERS.has(lower) || lower.startsWith('x-service-') || lower.startsWith('sec-')) {
    return { ok: false, reason: `names a header the service sets itself (${lower}); choose another name` };
  }
  return { ok: true };
}

/** Whether `value` may be the callback header's value: one line of visible ASCII, bounded. */
export function checkCallbackHeaderValue(value: string): CallbackHeaderVerdict {
  if (
    value.length === 0 ||
    value.length > MAX_CALLBACK_HEADER_VALUE_LENGTH ||
    !FIELD_VALUE_CHARACTERS.test(value) ||
    EDGE_WHITESPACE.test(value)
  ) {
    return {
      ok: false,
      reason: `must be one line of visible ASCII characters (spaces inside allowed), at most ${MAX_CALLBACK_HEADER_VALUE_LENGTH} long`,
    };
  }
  return { ok: true };
}

/** Deepgram's `callback_method` (POST or PUT, any case; POST when absent); null when it names another. */
export function callbackMethodOf(raw: string | undefined): 'POST' | 'PUT' | null {
  const value = raw?.trim().toUpperCase() || 'POST';
  return value === 'POST' || value === 'PUT' ? value : null;
}
