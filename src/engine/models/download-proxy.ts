import * as http from 'node:http';
import type { Socket } from 'node:net';

/**
 * The proxy settings `models:pull` honours, as curl and most tools read them: HTTPS_PROXY for https URLs,
 * HTTP_PROXY for http URLs (either spelling, upper case first), NO_PROXY for hosts reached directly. An
 * https download goes through an HTTP CONNECT tunnel (TLS stays end to end, the proxy sees only host and port);
 * an http download is sent to the proxy as an absolute-URI request. Node's own http/https ignore these
 * variables, so without this a machine behind a corporate proxy could not reach Hugging Face at all.
 */
export interface ProxySettings {
  httpsProxy?: string;
  httpProxy?: string;
  noProxy?: string;
}

export class ProxySettingError extends Error {}

/** The proxy to use for `url`, or null to connect directly. */
export function proxyFor(url: URL, settings: ProxySettings): URL | null {
  const value = url.protocol === 'https:' ? settings.httpsProxy : settings.httpProxy;
  if (!value || value.trim() === '') return null;
  if (bypassesProxy(url, settings.noProxy)) return null;
  return parseProxy(value);
}

/** `http://[user:password@]host[:port]`; a bare `host:port` means http. Only http proxies are supported. */
export function parseProxy(value: string): URL {
  const text = value.trim();
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    throw new ProxySettingError(`proxy '${text}' is not a URL (expected http://host:port)`);
  }
  if (proxy.protocol !== 'http:')
    throw new ProxySettingError(
      `proxy '${text}': only http:// proxies are supported (CONNECT tunnels https)`,
    );
  return proxy;
}

/**
 * NO_PROXY: entries separated by commas or spaces; `*` bypasses every host; `example.com` and `.example.com`
 * match the host and its subdomains; an IP address matches itself; `host:port` matches that port only. CIDR
 * ranges are not understood (they match nothing).
 */
export function bypassesProxy(url: URL, noProxy: string | undefined): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const raw of (noProxy ?? '').split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    const { entryHost, entryPort } = splitEntry(entry);
    if (entryPort !== null && entryPort !== port) continue;
    if (host === entryHost || host.endsWith(`.${entryHost}`)) return true;
  }
  return false;
}

/** `host`, `host:port`, `[v6]`, `[v6]:port` (a bare IPv6 address has no port); a leading `.` or `*.` dropped. */
function splitEntry(entry: string): { entryHost: string; entryPort: string | null } {
  let entryHost = entry;
  let entryPort: string | null = null;
  if (entry.startsWith('[') && entry.includes(']')) {
    const close = entry.indexOf(']');
    entryHost = entry.slice(1, close);
    const rest = entry.slice(close + 1);
    if (rest.startsWith(':')) entryPort = rest.slice(1);
  } else if (entry.split(':').length === 2) {
    [entryHost, entryPort] = entry.split(':');
  }
  return { entryHost: entryHost.replace(/^\*?\./, ''), entryPort };
}

/** Basic credentials from the proxy URL's user info, for Proxy-Authorization. */
export function proxyAuthorization(proxy: URL): Record<string, string> {
  if (!proxy.username) return {};
  const credentials = `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`;
  return { 'proxy-authorization': `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/**
 * Opens a CONNECT tunnel to `target` (host:port) through `proxy`; resolves with the raw socket once the proxy
 * answered 2xx. The caller runs TLS over it. Fails on any other answer, naming the proxy and its status.
 */
export function openTunnel(proxy: URL, target: URL, signal: AbortSignal): Promise<Socket> {
  const authority = `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`;
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: proxy.hostname,
      port: proxy.port || 80,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...proxyAuthorization(proxy) },
      agent: false,
      signal,
    });
    request.once('connect', (response, socket) => {
      const status = response.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        resolve(socket);
        return;
      }
      socket.destroy();
      reject(new Error(`proxy ${proxy.host} refused to tunnel to ${authority}: HTTP ${status}`));
    });
    request.once('error', (error) => reject(error));
    request.end();
  });
}
