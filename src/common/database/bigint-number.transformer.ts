import { ValueTransformer } from 'typeorm';

/** PostgreSQL bigint arrives as a string; micro-EUR amounts stay far below 2^53, so numbers are exact. */
export const bigintNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
