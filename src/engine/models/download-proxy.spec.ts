import { bypassesProxy, parseProxy, proxyAuthorization, proxyFor } from './download-proxy';

describe('proxy settings of models:pull', () => {
  const hf = new URL('https://huggingface.co/ggerganov/whisper.cpp/resolve/x/ggml-base.bin');

  it('uses HTTPS_PROXY for https and HTTP_PROXY for http, a bare host:port as http://', () => {
    const settings = { httpsProxy: 'proxy.corp:3128', httpProxy: 'http://plain.corp:8080' };
    expect(proxyFor(hf, settings)?.href).toBe('http://proxy.corp:3128/');
    expect(proxyFor(new URL('http://mirror.corp/x'), settings)?.href).toBe('http://plain.corp:8080/');
    expect(proxyFor(hf, { httpProxy: 'http://plain.corp:8080' })).toBeNull();
  });

  it('NO_PROXY matches hosts, their subdomains, IPs, ports and *', () => {
    expect(bypassesProxy(hf, 'huggingface.co')).toBe(true);
    expect(bypassesProxy(new URL('https://cdn-lfs.huggingface.co/x'), '.huggingface.co')).toBe(true);
    expect(bypassesProxy(new URL('https://cdn-lfs.huggingface.co/x'), '*.huggingface.co')).toBe(true);
    expect(bypassesProxy(new URL('https://nothuggingface.co/x'), 'huggingface.co')).toBe(false);
    expect(bypassesProxy(new URL('http://127.0.0.1:9000/x'), 'localhost, 127.0.0.1')).toBe(true);
    expect(bypassesProxy(new URL('http://127.0.0.1:9000/x'), '127.0.0.1:9001')).toBe(false);
    expect(bypassesProxy(hf, 'huggingface.co:443')).toBe(true);
    expect(bypassesProxy(new URL('http://[::1]:80/x'), '[::1]')).toBe(true);
    expect(bypassesProxy(hf, '*')).toBe(true);
    expect(bypassesProxy(hf, '')).toBe(false);
  });

  it('refuses proxies it cannot speak to, and sends user info as Basic credentials', () => {
    expect(() => parseProxy('socks5://proxy:1080')).toThrow('only http:// proxies are supported');
    expect(proxyAuthorization(parseProxy('http://us%40er:p%3Ass@proxy:3128'))).toEqual({
      'proxy-authorization': `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
    });
    expect(proxyAuthorization(parseProxy('proxy:3128'))).toEqual({});
  });
});
