/**
 * class-transformer `@Transform` functions shared by the configuration slices: environment values are
 * strings, and each turns one into what the slice's validators check. A value they cannot read is passed on
 * unchanged, so the validator names the variable.
 */
export type EnvironmentTransform = (params: { value: unknown }) => unknown;

/** Comma-separated items, trimmed, empty ones dropped. */
export const toList: EnvironmentTransform = ({ value }) =>
  typeof value === 'string'
    ? value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
    : value;

export const toInt: EnvironmentTransform = ({ value }) =>
  typeof value === 'string' && value.trim() !== '' ? Number(value) : value;

export const toFloat: EnvironmentTransform = toInt;

/** true/1/yes and false/0/no (any case); empty is false. */
export const toBool: EnvironmentTransform = ({ value }) => {
  if (typeof value !== 'string') return value;
  if (['true', '1', 'yes'].includes(value.toLowerCase())) return true;
  if (['false', '0', 'no', ''].includes(value.toLowerCase())) return false;
  return value;
};

/** true or false only (also 1/0, yes/no): a switch whose typo must stop the boot, not pick a side. */
export const toStrictBool: EnvironmentTransform = ({ value }) => {
  if (typeof value !== 'string') return value;
  if (['true', '1', 'yes'].includes(value.trim().toLowerCase())) return true;
  if (['false', '0', 'no'].includes(value.trim().toLowerCase())) return false;
  return value;
};
