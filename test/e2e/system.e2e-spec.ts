import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { expectMatchesSpec } from '../support/openapi-contract';
import { startTestApp, TestApp } from '../support/test-app';

describe('System endpoints', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLE: 'api' });
  });
  afterAll(() => t.close());

  it('GET /v1/health answers ok with a timestamp and version, without credentials', async () => {
    const response = await t.http().get('/v1/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', timestamp: expect.any(String), version: '1.0.0' });
    expect(Date.parse(response.body.timestamp)).toBeGreaterThan(Date.now() - 60_000);
    expectMatchesSpec(response, 'getHealth');
  });

  it('GET /v1/languages lists the 99 Whisper languages with ISO 639-1 codes, cacheable', async () => {
    const response = await t.http().get('/v1/languages');
    expect(response.status).toBe(200);
    expect(response.body.count).toBe(99);
    expect(response.body.data).toHaveLength(99);
    const codes = response.body.data.map((language: { code: string }) => language.code);
    expect(new Set(codes).size).toBe(99);
    expect(codes).toEqual(expect.arrayContaining(['en', 'de', 'fr', 'ja', 'jv', 'haw']));
    expect(codes).not.toContain('jw');
    expect(response.headers['cache-control']).toMatch(/public, max-age=\d{5,}/);
    expectMatchesSpec(response, 'listLanguages');
  });

  it('serves openapi.yaml as JSON at /openapi.json, version 1.0.0', async () => {
    const response = await t.http().get('/openapi.json');
    expect(response.status).toBe(200);
    const fromFile = parse(readFileSync(join(__dirname, '..', '..', 'openapi.yaml'), 'utf8'));
    expect(response.body).toEqual(fromFile);
    expect(response.body.openapi).toBe('3.1.0');
    expect(response.body.info.version).toBe('1.0.0');
  });

  it('serves the interactive reference at /docs', async () => {
    const response = await t.http().get('/docs/').redirects(1);
    expect(response.status).toBe(200);
    expect(response.text).toContain('swagger-ui');
  });

  // GET /v1/health is the exception: never counted (rate-limit.e2e-spec.ts).
  it('sets x-ratelimit-* headers on every response, errors and unknown routes included', async () => {
    for (const path of ['/v1/languages', '/v1/nothing-here', '/v1/account/balance']) {
      const response = await t.http().get(path);
      for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
        expect({ path, header, value: response.headers[header] }).toEqual({
          path,
          header,
          value: expect.stringMatching(/^\d+$/),
        });
      }
    }
  });
});
