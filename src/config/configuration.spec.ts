import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Min } from 'class-validator';
import { toInt } from './config-transformers';
import { ConfigValidationError, CrossSliceCheck, loadConfigSlice, loadConfiguration } from './configuration';

class FirstSlice {
  @Transform(toInt)
  @IsInt()
  @Min(1)
  FIRST_COUNT = 3;

  @IsIn(['a', 'b'])
  FIRST_MODE: 'a' | 'b' = 'a';
}

class SecondSlice {
  @IsOptional()
  @IsString()
  SECOND_NAME?: string;

  static readonly crossSliceChecks: CrossSliceCheck<SecondSlice>[] = [
    {
      variable: 'SECOND_NAME',
      problem: (slice, configuration) =>
        slice.SECOND_NAME === 'forbidden' && configuration.get(FirstSlice).FIRST_MODE === 'a'
          ? 'SECOND_NAME=forbidden needs FIRST_MODE=b'
          : undefined,
    },
  ];
}

class DuplicateSlice {
  FIRST_COUNT = 1;
}

describe('loadConfiguration', () => {
  it('gives each slice its defaults and converted values, ignoring variables no slice reads', () => {
    const configuration = loadConfiguration([FirstSlice, SecondSlice], { FIRST_COUNT: '7', OTHER: 'x' });
    expect(configuration.get(FirstSlice)).toEqual({ FIRST_COUNT: 7, FIRST_MODE: 'a' });
    expect(configuration.get(FirstSlice)).toBeInstanceOf(FirstSlice);
    expect(configuration.get(SecondSlice).SECOND_NAME).toBeUndefined();
    expect(configuration.variableNames()).toEqual(['FIRST_COUNT', 'FIRST_MODE', 'SECOND_NAME']);
  });

  it('throws one error with a line per bad variable of every slice, cross-slice checks included', () => {
    const attempt = () =>
      loadConfiguration([FirstSlice, SecondSlice], { FIRST_COUNT: '0', SECOND_NAME: 'forbidden' });
    expect(attempt).toThrow(ConfigValidationError);
    expect(attempt).toThrow(
      'Invalid configuration:\n' +
        '  FIRST_COUNT="0": FIRST_COUNT must not be less than 1\n' +
        '  SECOND_NAME="forbidden": SECOND_NAME=forbidden needs FIRST_MODE=b',
    );
    expect(() =>
      loadConfiguration([FirstSlice, SecondSlice], { FIRST_MODE: 'b', SECOND_NAME: 'forbidden' }),
    ).not.toThrow();
  });

  it('refuses two slices reading the same variable', () => {
    expect(() => loadConfiguration([FirstSlice, DuplicateSlice], {})).toThrow(
      'FIRST_COUNT is read by two slices: FirstSlice and DuplicateSlice',
    );
  });

  it('loads one slice on its own, and says when a slice was not loaded', () => {
    expect(loadConfigSlice(FirstSlice, { FIRST_MODE: 'b' }).FIRST_MODE).toBe('b');
    expect(() => loadConfiguration([FirstSlice], {}).get(SecondSlice)).toThrow(
      'SecondSlice is not among the loaded configuration slices',
    );
  });
});

describe('src/config', () => {
  it('is a leaf: its files import only each other and packages, never a module of the service', () => {
    const { readdirSync, readFileSync } = jest.requireActual<typeof import('node:fs')>('node:fs');
    const { join } = jest.requireActual<typeof import('node:path')>('node:path');
    const outward = readdirSync(__dirname)
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        [...readFileSync(join(__dirname, file), 'utf8').matchAll(/from '(\.\.\/[^']*)'/g)].map(
          ([, target]) => `${file} → ${target}`,
        ),
      );
    expect(outward).toEqual([]);
  });
});
