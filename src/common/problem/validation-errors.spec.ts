import { ValidationError } from 'class-validator';
import { flattenValidationErrors } from './validation-errors';

const error = (property: string, constraints?: Record<string, string>, children: ValidationError[] = []) =>
  Object.assign(new ValidationError(), { property, constraints, children });

describe('flattenValidationErrors', () => {
  it('keys messages by JSON path, with array indexes in brackets', () => {
    const flat = flattenValidationErrors([
      error('name', { isLength: 'name too long' }),
      error('words', undefined, [error('3', { minLength: 'too short' })]),
      error('meta', undefined, [error('owner', undefined, [error('email', { isEmail: 'bad email' })])]),
    ]);
    expect(flat).toEqual({
      fieldErrors: { name: ['name too long'], 'words[3]': ['too short'], 'meta.owner.email': ['bad email'] },
      formErrors: [],
    });
  });
});
