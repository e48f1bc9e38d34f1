import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { ProblemConfig } from './problem.config';
import { loadConfigSlice } from '../../config/configuration';
import { ProblemDetailsFilter } from './problem-details.filter';
import { ProblemException } from './problem.exception';
import { RouteErrorShapes } from './route-error-shapes';

class RecordingResponse {
  statusCode = 0;
  headers: Record<string, string> = {};
  body: unknown;
  headersSent = false;
  setHeader(name: string, value: string): void {
    this.headers[name.toLowerCase()] = value;
  }
  getHeader(name: string): string | undefined {
    return this.headers[name.toLowerCase()];
  }
  status(code: number): this {
    this.statusCode = code;
    return this;
  }
  type(value: string): this {
    this.headers['content-type'] = value;
    return this;
  }
  json(body: unknown): this {
    this.body = body;
    return this;
  }
  end(): void {}
}

function render(
  exception: unknown,
  routeShapes = new RouteErrorShapes(),
  originalUrl = '/v1/transcriptions',
): RecordingResponse {
  const response = new RecordingResponse();
  const request = { originalUrl };
  const host = {
    switchToHttp: () => ({ getResponse: () => response, getRequest: () => request }),
  } as unknown as ArgumentsHost;
  new ProblemDetailsFilter(
    loadConfigSlice(ProblemConfig, { ERRORS_BASE_URL: 'https://e.example/p' }),
    routeShapes,
  ).catch(exception, host);
  return response;
}

describe('ProblemDetailsFilter', () => {
  beforeAll(() => Logger.overrideLogger(false));

  it('answers in the shape a route registered, on that route only', () => {
    const routeShapes = new RouteErrorShapes();
    routeShapes.register(
      (request) => request.originalUrl === '/v1/elsewhere',
      (response, problem) => response.status(problem.status).json({ error: problem.slug }),
    );
    const refused = new ProblemException('rate-limit', 'Slow down.');

    const registered = render(refused, routeShapes, '/v1/elsewhere');
    expect(registered.statusCode).toBe(429);
    expect(registered.body).toEqual({ error: 'rate-limit' });

    const other = render(refused, routeShapes, '/v1/transcriptions');
    expect(other.headers['content-type']).toBe('application/problem+json');
  });

  it('renders a ProblemException with its slug, title, status, detail, extensions and headers', () => {
    const response = render(
      new ProblemException('insufficient-balance', 'Top up.', {
        balance: 0,
        freeRemaining: 0,
        minimumBalance: 0.01,
      }),
    );
    expect(response.statusCode).toBe(402);
    expect(response.headers['content-type']).toBe('application/problem+json');
    expect(response.body).toEqual({
      type: 'https://e.example/p/insufficient-balance',
      title: 'Insufficient balance',
      status: 402,
      detail: 'Top up.',
      balance: 0,
      freeRemaining: 0,
      minimumBalance: 0.01,
    });
  });

  it('turns an unexpected error into 500 internal with an error id and no internals', () => {
    const response = render(new TypeError('Cannot read properties of undefined (reading "secretColumn")'));
    const body = response.body as { type: string; detail: string; errorId: string; status: number };
    expect(response.statusCode).toBe(500);
    expect(body.type).toBe('https://e.example/p/internal');
    expect(body.errorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.detail).toContain(body.errorId);
    expect(JSON.stringify(body)).not.toContain('secretColumn');
  });

  it('maps a refused PostgreSQL/Redis connection to 503 service-unavailable with Retry-After', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const response = render(refused);
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect((response.body as { type: string }).type).toBe('https://e.example/p/service-unavailable');
  });

  it("maps Nest's NotFoundException (unknown route) to not-found and body-parser errors to their slugs", () => {
    expect(render(new NotFoundException('Cannot GET /x')).statusCode).toBe(404);
    expect(
      render(Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413 })).statusCode,
    ).toBe(413);
    expect(
      render(Object.assign(new Error('bad'), { type: 'entity.parse.failed', status: 400 })).statusCode,
    ).toBe(400);
  });
});
