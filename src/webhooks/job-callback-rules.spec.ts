import { callbackMethodOf, checkCallbackHeaderName, checkCallbackHeaderValue } from './job-callback-rules';

describe('per-job callback rules (what a tenant may make a callback carry)', () => {
  it('takes an HTTP header name of the caller’s, not one the service sets or that frames the request', () => {
    expect(checkCallbackHeaderName('X-Hook-Secret')).toEqual({ ok: true });
    expect(checkCallbackHeaderName('Authorization')).toEqual({ ok: true });
    for (const reserved of [
      'Host',
      'content-length',
      'Content-Type',
      'Transfer-Encoding',
      'Connection',
      'User-Agent',
      'X-Request-Id',
      'X-Service-Signature',
      'x-service-delivery-id',
      'Sec-WebSocket-Key',
    ]) {
      expect(checkCallbackHeaderName(reserved)).toMatchObject({ ok: false });
    }
    for (const broken of ['', 'X Hook', 'X-Hook:', 'X-Hook\r\nHost', 'é', 'x'.repeat(101)]) {
      expect(checkCallbackHeaderName(broken)).toMatchObject({ ok: false });
    }
  });

  it('takes one line of visible ASCII as the value, bounded; never a line break', () => {
    expect(checkCallbackHeaderValue('Bearer abc.def')).toEqual({ ok: true });
    for (const broken of [
      '',
      ' leading',
      'trailing ',
      'a\r\nHost: evil',
      'a\nb',
      'a\u0000b',
      'é',
      'x'.repeat(2001),
    ]) {
      expect(checkCallbackHeaderValue(broken)).toMatchObject({ ok: false });
    }
  });

  it('reads Deepgram’s callback_method: POST or PUT in any case, POST by default', () => {
    expect(callbackMethodOf(undefined)).toBe('POST');
    expect(callbackMethodOf('')).toBe('POST');
    expect(callbackMethodOf('put')).toBe('PUT');
    expect(callbackMethodOf('POST')).toBe('POST');
    expect(callbackMethodOf('GET')).toBeNull();
  });
});
