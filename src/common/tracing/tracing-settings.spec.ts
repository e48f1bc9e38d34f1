import { otelVariablesFromFile, tracingRequested } from './tracing-settings';

describe('tracingRequested: off unless an endpoint or a trace exporter is named', () => {
  it.each([
    [{}, false],
    [{ OTEL_SERVICE_NAME: 'stt', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_TRACES_EXPORTER: 'otlp' }, true],
    [{ OTEL_TRACES_EXPORTER: 'console' }, true],
    [{ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_TRACES_EXPORTER: 'otlp, none' }, false],
    [{ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, false],
    [{ OTEL_SDK_DISABLED: 'TRUE', OTEL_TRACES_EXPORTER: 'otlp' }, false],
    [{ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
  ])('%j → %s', (environment, expected) => {
    expect(tracingRequested(environment as Record<string, string>)).toBe(expected);
  });
});

describe('otelVariablesFromFile', () => {
  it("takes the file's OTEL_* variables the environment does not set, and nothing else", () => {
    expect(
      otelVariablesFromFile({
        environment: {
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
          OTEL_SERVICE_NAME: 'from-the-environment',
          DATABASE_URL: 'postgres://db/stt',
        },
        file: '/srv/stt/.env',
        fromFile: ['OTEL_EXPORTER_OTLP_ENDPOINT', 'DATABASE_URL'],
        overridden: ['OTEL_SERVICE_NAME'],
      }),
    ).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
  });
});
