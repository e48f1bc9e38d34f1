import { Global, Injectable, Module } from '@nestjs/common';
import type { Request, Response } from 'express';
import type { ProblemException } from './problem.exception';

/** Writes a classified error in a route's own shape instead of `application/problem+json`. */
export type ProblemResponder = (response: Response, problem: ProblemException) => void;

interface RouteErrorShape {
  matches: (request: Request) => boolean;
  respond: ProblemResponder;
}

/**
 * Routes that answer errors in another API's shape register it here, so the service-wide filter also uses it
 * for what is refused before their controller runs (middleware such as the rate limit). The filter knows no
 * such route by name: the module that owns the route registers its shape at start-up.
 */
@Injectable()
export class RouteErrorShapes {
  private readonly shapes: RouteErrorShape[] = [];

  register(matches: (request: Request) => boolean, respond: ProblemResponder): void {
    this.shapes.push({ matches, respond });
  }

  /** The responder of the first registered route `request` belongs to; undefined: problem+json. */
  responderFor(request: Request): ProblemResponder | undefined {
    return this.shapes.find((shape) => shape.matches(request))?.respond;
  }
}

/** One registry for the whole application: the global filter (bootstrap) and every registering module share it. */
@Global()
@Module({ providers: [RouteErrorShapes], exports: [RouteErrorShapes] })
export class RouteErrorShapesModule {}
