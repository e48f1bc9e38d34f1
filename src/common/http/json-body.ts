import { json, type Request, type Response } from 'express';
import { ProblemException } from '../problem/problem.exception';

/** No request body of the contract nests deeper than 3; deep nesting would only overflow the stack later. */
const MAX_JSON_DEPTH = 64;
/**
 * No request body of the contract has more than a handful of object members (a vocabulary's 500 words are
 * array elements). Thousands of members cost the DTO transformation time quadratic in their number (131,000
 * unknown keys blocked the event loop for 12.6 s), so they are refused before JSON.parse ever sees them.
 */
export const MAX_JSON_OBJECT_MEMBERS = 1_000;

/** What a route changes of the one JSON reader; by default the errors are body-parser's, for the problem filter. */
export interface JsonBodyOptions {
  /** The most bytes of the body, decoded. */
  maxBytes: number;
  /** The refusal of a longer body (default: body-parser's, answered 413 payload-too-large). */
  tooLarge?: () => ProblemException;
  /**
   * The refusal of a body that is not JSON; a route that words it also refuses an empty body (default:
   * body-parser's 400, and an empty body reads as `{}`).
   */
  notJson?: () => ProblemException;
  /** Any JSON value at the top level, for the caller to judge (default: an object or an array only). */
  anyTopLevel?: boolean;
}

/**
 * The service's one JSON body reader: body-parser with the hostile-shape guard (depth, object members, lone
 * surrogates) on the raw bytes before parsing. Returns a function that reads a request's body and resolves
 * with its value (also left in `request.body`).
 */
export function jsonBodyReader(
  options: JsonBodyOptions,
): (request: Request, response: Response) => Promise<unknown> {
  const parse = json({
    limit: options.maxBytes,
    strict: !options.anyTopLevel,
    verify: (_request, _response, raw) => {
      if (options.notJson && raw.length === 0) throw new EmptyJsonBody();
      refuseHostileShape(raw);
    },
  });
  return (request, response) =>
    new Promise((resolve, reject) =>
      parse(request, response, (error?: unknown) => {
        if (error)
          return reject(routeRefusal(error, options) ?? decodingProblem(request, error) ?? toError(error));
        if (request.body === undefined && options.notJson) return reject(options.notJson());
        resolve(request.body);
      }),
    );
}

/** body-parser reads an empty body as `{}`; a route that words its refusal of non-JSON refuses it too. */
class EmptyJsonBody extends Error {
  readonly type = 'entity.parse.failed';
}

function routeRefusal(error: unknown, options: JsonBodyOptions): ProblemException | null {
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large' && options.tooLarge) return options.tooLarge();
  if (type === 'entity.parse.failed' && options.notJson) return options.notJson();
  return null;
}

/**
 * A body that is not what its Content-Encoding says (`gzip` on plain JSON) fails inside zlib; body-parser
 * passes that on as an untyped 400, which would otherwise become a 500.
 */
function decodingProblem(request: Request, error: unknown): ProblemException | null {
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
  const typed = typeof (error as { type?: unknown } | null)?.type === 'string';
  if (encoding === 'identity' || typed) return null;
  return new ProblemException(
    'malformed-request',
    `The request body could not be decoded as its Content-Encoding (${encoding}) says.`,
  );
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

class HostileJson extends Error {
  // body-parser reports verify errors under this type; the problem filter answers 400 with the message.
  readonly type = 'entity.verify.failed';
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const COLON = 0x3a;

/** The code unit of a `\uXXXX` escape starting at `index` (the backslash), or -1 if it is another escape. */
function unicodeEscapeAt(raw: Buffer, index: number): number {
  if (raw[index] !== BACKSLASH || raw[index + 1] !== 0x75 /* u */) return -1;
  const hex = raw.toString('latin1', index + 2, index + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) ? parseInt(hex, 16) : -1;
}

/**
 * One linear pass over the raw bytes, before parsing: refuses (400 malformed-request) nesting deeper than
 * MAX_JSON_DEPTH, more than MAX_JSON_OBJECT_MEMBERS object members (counted as `:` outside strings), and
 * escapes of lone UTF-16 surrogates (`"\ud800"`), which are not Unicode text and which PostgreSQL refuses
 * (jsonb) or silently replaces (text). Raw UTF-8 cannot encode a surrogate, so escapes are the only way in.
 */
function refuseHostileShape(raw: Buffer): void {
  let depth = 0;
  let members = 0;
  let inString = false;
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index];
    if (inString) {
      if (byte === QUOTE) inString = false;
      else if (byte === BACKSLASH) {
        const unit = unicodeEscapeAt(raw, index);
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const low = unicodeEscapeAt(raw, index + 6);
          if (low >= 0xdc00 && low <= 0xdfff) {
            index += 11; // the pair `\uD83C\uDF99`, one character
            continue;
          }
        }
        if (unit >= 0xd800 && unit <= 0xdfff) {
          throw new HostileJson(
            `The JSON body contains a lone UTF-16 surrogate (\\u${unit.toString(16)}); strings must be Unicode text.`,
          );
        }
        index++;
      }
    } else if (byte === QUOTE) inString = true;
    else if (byte === COLON) {
      if (++members > MAX_JSON_OBJECT_MEMBERS) {
        throw new HostileJson(`The JSON body has more than ${MAX_JSON_OBJECT_MEMBERS} object members.`);
      }
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new HostileJson(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels.`);
      }
    } else if (byte === 0x5d || byte === 0x7d) depth--;
  }
}
