import { joinWords } from '../../engine/pipeline/transcript-assembly';
import { formatNumbers } from './number-formatting';
import { timedWords } from './text.fixtures';
import { detectPii, isValidIban, passesLuhn, PII_POLICIES, redactPii } from './pii-redaction';
import { wordKeys } from './transcript-words';

const found = (text: string) =>
  detectPii(wordKeys(timedWords(text))).map((span) => [
    span.policy,
    text
      .split(' ')
      .slice(span.from, span.to + 1)
      .join(' '),
  ]);

describe('PII detection', () => {
  it.each([
    [
      'call me on four one five five five five one two three four thanks',
      [['phone_number', 'four one five five five five one two three four']],
    ],
    ['call me on (415) 555-1234 thanks', [['phone_number', '(415) 555-1234']]],
    [
      'card four one one one one one one one one one one one one one one one ok',
      [['credit_card_number', 'four one one one one one one one one one one one one one one one']],
    ],
    ['card 4111 1111 1111 1112 ok', [['number_sequence', '4111 1111 1111 1112']]],
    ['iban DE89 3704 0044 0532 0130 00 ok', [['banking_information', 'DE89 3704 0044 0532 0130 00']]],
    [
      'iban d e eight nine three seven zero four zero zero four four zero five three two zero one three zero zero zero ok',
      [
        [
          'banking_information',
          'd e eight nine three seven zero four zero zero four four zero five three two zero one three zero zero zero',
        ],
      ],
    ],
    [
      'my account number is one two three four five six seven eight',
      [['banking_information', 'one two three four five six seven eight']],
    ],
    [
      'my social security number is one two three four five six seven eight nine',
      [['us_social_security_number', 'one two three four five six seven eight nine']],
    ],
    ['it is 123-45-6789 ok', [['us_social_security_number', '123-45-6789']]],
    ['it is 666-45-6789 ok', [['phone_number', '666-45-6789']]],
    [
      'i was born on march third nineteen eighty five in ohio',
      [['date_of_birth', 'march third nineteen eighty five']],
    ],
    ['date of birth the fifth of may two thousand one', [['date_of_birth', 'fifth of may two thousand one']]],
    ['born 3/14/1985 here', [['date_of_birth', '3/14/1985']]],
    ['email jane dot doe at example dot com please', [['email_address', 'jane dot doe at example dot com']]],
    ['email jane.doe@example.com. please', [['email_address', 'jane.doe@example.com.']]],
    ['we met at noon at the station', []],
    ['about twelve percent in nineteen ninety nine', []],
    ['six hundred thousand people', [['number_sequence', 'six hundred thousand']]],
  ])('%s', (text, expected) => {
    expect(found(text)).toEqual(expected);
  });

  it('checks card numbers with Luhn and IBANs with mod 97', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(isValidIban('DE89370400440532013000')).toBe(true);
    expect(isValidIban('DE88370400440532013000')).toBe(false);
  });

  it('finds what formatted numbers say too', () => {
    const words = formatNumbers(timedWords('call four one five five five five one two three four now'));
    expect(joinWords(words)).toBe('call 4155551234 now');
    expect(detectPii(wordKeys(words))).toEqual([{ policy: 'phone_number', from: 1, to: 1 }]);
  });
});

describe('redactPii', () => {
  const words = timedWords(
    'call four one five five five five one two three four, or mail jo at acme dot com.',
  );

  it('writes a span as its entity name, timed over its words', () => {
    const redacted = redactPii(words, ['phone_number', 'email_address'], 'entity_name');
    expect(joinWords(redacted.words)).toBe('call [PHONE_NUMBER], or mail [EMAIL_ADDRESS].');
    expect(redacted.words[1]).toMatchObject({ start: 1, end: 10.5 });
    expect(redacted.spans).toEqual([
      { start: 1, end: 10.5 },
      { start: 13, end: 17.5 },
    ]);
  });

  it('hashes each word of a span, each keeping its own times', () => {
    const redacted = redactPii(words, ['phone_number'], 'hash');
    expect(joinWords(redacted.words)).toBe(
      'call #### ### #### #### #### #### ### ### ##### ####, or mail jo at acme dot com.',
    );
    expect(redacted.words.map((word) => word.start)).toEqual(words.map((word) => word.start));
  });

  it('redacts only the policies asked for, and knows AssemblyAI’s names', () => {
    expect(joinWords(redactPii(words, ['email_address'], 'entity_name').words)).toContain('four one five');
    const required =
      'email_address phone_number credit_card_number banking_information us_social_security_number date_of_birth';
    expect(PII_POLICIES).toEqual(expect.arrayContaining(required.split(' ')));
  });
});
