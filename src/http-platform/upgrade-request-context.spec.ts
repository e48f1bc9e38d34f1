import type { IncomingMessage } from 'node:http';
import { clientAddress } from './upgrade-request-context';

const request = (remoteAddress: string, forwardedFor?: string) =>
  ({
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('clientAddress (an upgrade counted against the address Express would give request.ip)', () => {
  const none = () => false;
  const hops = (count: number) => (_address: string, hop: number) => hop < count;

  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress(request('10.0.0.5'), none)).toBe('10.0.0.5');
    expect(clientAddress(request('10.0.0.5', '203.0.113.9'), none)).toBe('10.0.0.5');
  });

  it('follows X-Forwarded-For from the right through the trusted hops only', () => {
    const forwarded = '198.51.100.1, 203.0.113.9';
    expect(clientAddress(request('10.0.0.5', forwarded), hops(1))).toBe('203.0.113.9');
    expect(clientAddress(request('10.0.0.5', forwarded), hops(2))).toBe('198.51.100.1');
    // All trusted: the leftmost address.
    expect(clientAddress(request('10.0.0.5', forwarded), () => true)).toBe('198.51.100.1');
  });

  it('trusts by address as Express does (the peer must be a listed proxy)', () => {
    const loopback = (address: string) => address === '127.0.0.1';
    expect(clientAddress(request('127.0.0.1', '203.0.113.9'), loopback)).toBe('203.0.113.9');
    expect(clientAddress(request('10.0.0.5', '203.0.113.9'), loopback)).toBe('10.0.0.5');
  });
});
