import { Injectable, NestMiddleware } from '@nestjs/common';
import { json, NextFunction, Request, Response } from 'express';

const parseJson = json({ limit: '1mb', strict: true });

/**
 * JSON body parsing as a Nest middleware (the platform's parser is off), so it runs after rate limiting
 * and its errors (broken JSON, too large) reach the problem-details filter like any other.
 */
@Injectable()
export class JsonBodyMiddleware implements NestMiddleware {
  async use(request: Request, response: Response, next: NextFunction): Promise<void> {
    await new Promise<void>((resolve, reject) =>
      parseJson(request, response, (error?: unknown) => (error ? reject(toError(error)) : resolve())),
    );
    next();
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
