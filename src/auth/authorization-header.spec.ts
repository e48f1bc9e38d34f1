import { bearerCredential } from './authorization-header';

describe('bearerCredential (RFC 7235 reading of Authorization: Bearer)', () => {
  it.each([
    ['Bearer abc', 'abc'],
    ['bearer abc', 'abc'],
    ['BEARER abc', 'abc'],
    ['BeArEr abc', 'abc'],
    ['Bearer    abc', 'abc'],
    ['Bearer\tabc', 'abc'],
    ['Bearer \t abc', 'abc'],
    ['  Bearer abc  ', 'abc'],
  ])('%j carries the credential', (header, credential) => {
    expect(bearerCredential(header)).toBe(credential);
  });

  it.each([
    [undefined],
    [''],
    ['Bearer'],
    ['Bearer '],
    ['Bearerabc'],
    ['Basic dXNlcjpwYXNz'],
    ['Bearer abc def'],
    ['Token abc'],
  ])('%j is not a Bearer credential', (header) => {
    expect(bearerCredential(header)).toBeNull();
  });
});
