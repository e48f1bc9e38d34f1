import { AuthConfig } from '../auth.config';
import { KnownDeviceService } from './known-device.service';

describe('KnownDeviceService', () => {
  const devices = new KnownDeviceService({
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256',
  } as AuthConfig);

  it('recognises its own token for the email it was issued for, with a new id each time', () => {
    const first = devices.issue('owner@example.com');
    const second = devices.issue('owner@example.com');
    expect(devices.recognise('owner@example.com', first)).toBe(first.split('.')[0]);
    expect(first.split('.')[0]).not.toBe(second.split('.')[0]);
  });

  it('refuses another account’s token, a changed id, a token of another secret and garbage', () => {
    const token = devices.issue('owner@example.com');
    const [id, mac] = token.split('.');
    const otherSecret = new KnownDeviceService({
      JWT_SECRET: 'another-secret-that-is-long-enough-too',
    } as AuthConfig);
    expect(devices.recognise('attacker@example.com', token)).toBeNull();
    expect(devices.recognise('owner@example.com', `${id}x.${mac}`)).toBeNull();
    expect(devices.recognise('owner@example.com', otherSecret.issue('owner@example.com'))).toBeNull();
    for (const garbage of [null, '', '.', 'abc', `${token}.x`, `${id}.`]) {
      expect(devices.recognise('owner@example.com', garbage)).toBeNull();
    }
  });
});
