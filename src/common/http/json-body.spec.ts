import type { Request, Response } from 'express';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ProblemException } from '../problem/problem.exception';
import { jsonBodyReader, type JsonBodyOptions } from './json-body';

/** Reads one request's body with `options` on a real server; resolves with the value or the refusal. */
async function readWith(options: JsonBodyOptions, body: string): Promise<unknown> {
  const read = jsonBodyReader(options);
  let settle: (value: unknown) => void = () => undefined;
  const outcome = new Promise<unknown>((resolve) => (settle = resolve));
  const server = createServer((request, response) => {
    read(request as Request, response as Response).then(settle, settle);
    response.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    const client = httpRequest({ port, method: 'POST', headers: { 'Content-Type': 'application/json' } });
    client.on('response', (response) => response.resume().on('end', resolve));
    client.on('error', () => resolve());
    client.end(body);
  });
  const value = await outcome;
  await new Promise((resolve) => server.close(resolve));
  return value;
}

const urlForm: JsonBodyOptions = {
  maxBytes: 64,
  tooLarge: () => new ProblemException('malformed-request', 'too large'),
  notJson: () => new ProblemException('malformed-request', 'not JSON'),
  anyTopLevel: true,
};

describe('jsonBodyReader', () => {
  it('reads a JSON body within the limit', async () => {
    expect(await readWith({ maxBytes: 1024 }, '{"a":[1,2]}')).toEqual({ a: [1, 2] });
  });

  it("answers a route's own refusals: over its limit, not JSON, empty", async () => {
    const detail = (value: unknown) => (value as ProblemException).detail;
    expect(detail(await readWith(urlForm, JSON.stringify({ audio_url: 'x'.repeat(100) })))).toBe('too large');
    expect(detail(await readWith(urlForm, '{"a":'))).toBe('not JSON');
    expect(detail(await readWith(urlForm, ''))).toBe('not JSON');
  });

  it('lets a route read any top-level value; by default only objects and arrays', async () => {
    expect(await readWith(urlForm, '"text"')).toBe('text');
    expect(await readWith({ maxBytes: 1024 }, '"text"')).toMatchObject({ type: 'entity.parse.failed' });
  });

  it('refuses a hostile shape whatever the route', async () => {
    expect(await readWith({ maxBytes: 1024 }, '[[[[[[[[[['.repeat(7))).toMatchObject({
      type: 'entity.verify.failed',
      message: 'The JSON body is nested deeper than 64 levels.',
    });
  });
});
