import { Injectable, PipeTransform } from '@nestjs/common';
import { ProblemException } from '../problem/problem.exception';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A path id that is not a UUID names no resource: 404, never 400. */
@Injectable()
export class ResourceIdPipe implements PipeTransform<string, string> {
  transform(value: string): string {
    if (!isUuid(value)) throw new ProblemException('not-found', 'No resource has this id.');
    return value.toLowerCase();
  }
}
