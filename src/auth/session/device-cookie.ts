/**
 * A browser's proof that it signed in to an account before (KnownDeviceService); sent to sign-in only.
 * Set and read through SessionCookies, which prefixes the name with `__Secure-` when cookies are Secure.
 */
export const DEVICE_COOKIE = 'stt_device';
export const DEVICE_COOKIE_PATH = '/v1/auth/login';
/** A year, renewed at every sign-in: a device stays known as long as it keeps being used. */
export const DEVICE_COOKIE_MAX_AGE_MS = 365 * 24 * 3600 * 1000;
