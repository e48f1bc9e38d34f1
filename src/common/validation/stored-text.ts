import { ValidationOptions, registerDecorator, ValidationArguments } from 'class-validator';

/**
 * Length as PostgreSQL's varchar(n) counts it: code points. class-validator's @Length counts an emoji with a
 * variation selector (`❤️`, two code points) as one character, so 100 of them passed @Length(1, 100) and the
 * INSERT failed with a 500. Every length limit of a stored string is measured with this function.
 */
export function codePointLength(value: string): number {
  let length = 0;
  for (const _character of value) length++;
  return length;
}

/** A string of `min` to `max` code points (what a varchar(max) column holds). */
export function CodePointLength(min: number, max: number, options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'codePointLength',
      target: target.constructor,
      propertyName: String(propertyName),
      options: {
        message: (args: ValidationArguments) =>
          `${args.property} must be ${min} to ${max} characters (Unicode code points)`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && codePointLength(value) >= min && codePointLength(value) <= max,
      },
    });
}

/** NUL (PostgreSQL text and jsonb cannot hold it) or a lone UTF-16 surrogate (not Unicode text at all). */
// eslint-disable-next-line no-control-regex -- NUL is exactly what is looked for
const UNSTORABLE = /[\u0000\p{Cs}]/u;

/** Why `value` cannot be stored as text, or null when it can. */
export function unstorableTextReason(value: string): string | null {
  const match = UNSTORABLE.exec(value);
  if (!match) return null;
  return match[0] === '\u0000'
    ? 'must not contain NUL characters'
    : 'must not contain lone UTF-16 surrogates';
}
