import type { Response } from 'express';

/** A browser's proof that it signed in to an account before (KnownDeviceService); sent to sign-in only. */
export const DEVICE_COOKIE = 'stt_device';
export const DEVICE_COOKIE_PATH = '/v1/auth/login';
/** A year, renewed at every sign-in: a device stays known as long as it keeps being used. */
const DEVICE_COOKIE_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

export function setDeviceCookie(response: Response, secure: boolean, token: string): void {
  response.cookie(DEVICE_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: DEVICE_COOKIE_PATH,
    maxAge: DEVICE_COOKIE_MAX_AGE_MS,
  });
}
