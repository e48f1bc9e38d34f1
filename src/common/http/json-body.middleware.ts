import { Injectable, NestMiddleware } from '@nestjs/common';
import { json, NextFunction, Request, Response } from 'express';
import { ProblemException } from '../problem/problem.exception';
import { isUploadRequest } from './request-path';

/** No request body of the contract nests deeper than 3; deep nesting would only overflow the stack later. */
const MAX_JSON_DEPTH = 64;
/**
 * No request body of the contract has more than a handful of object members (a vocabulary's 500 words are
 * array elements). Thousands of members cost the DTO transformation time quadratic in their number (131,000
 * unknown keys blocked the event loop for 12.6 s), so they are refused before JSON.parse ever sees them.
 */
export const MAX_JSON_OBJECT_MEMBERS = 1_000;
const parseJson = json({
  limit: '1mb',
  strict: true,
  verify: (_request, _response, raw) => refuseHostileShape(raw),
});
/**
 * Only these methods carry a JSON body in the contract; a body sent with GET or DELETE is ignored, and the
 * upload (multipart only) answers 415 for JSON instead of parsing it.
 */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * JSON body parsing as a Nest middleware (the platform's parser is off), so it runs after rate limiting
 * and its errors (broken JSON, too large) reach the problem-details filter like any other.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    if (!BODY_METHODS.has(request.method) || isUploadRequest(request)) return next();
    await new Promise<void>((resolve, reject) =>
      parseJson(request, response, (error?: unknown) =>
        error ? reject(decodingProblem(request, error) ?? toError(error)) : resolve(),
      ),
    );
    next();
  }
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
