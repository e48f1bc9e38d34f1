import { ProblemException } from '../../common/problem/problem.exception';
import { parseTextOptions } from './text-options';

describe('parseTextOptions', () => {
  it('asks for nothing by default, leaving number formatting to the tier', () => {
    expect(parseTextOptions({})).toEqual({
      customSpelling: [],
      formatNumbers: null,
      filterProfanity: false,
      redactPii: null,
    });
  });

  it('reads policies as a JSON array or a comma-separated list, without repeats', () => {
    const fromJson = parseTextOptions({
      redact_pii: 'true',
      redact_pii_policies: '["phone_number","phone_number"]',
    });
    const fromList = parseTextOptions({
      redact_pii: 'TRUE',
      redact_pii_policies: 'phone_number, email_address',
      redact_pii_sub: 'hash',
      redact_pii_audio: 'true',
    });
    expect(fromJson.redactPii).toEqual({
      policies: ['phone_number'],
      substitution: 'entity_name',
      audio: false,
    });
    expect(fromList.redactPii).toEqual({
      policies: ['phone_number', 'email_address'],
      substitution: 'hash',
      audio: true,
    });
  });

  it('trims custom spelling texts and keeps the case of `to`', () => {
    expect(
      parseTextOptions({
        custom_spelling: '[{"from":[" k eight s "],"to":" K8s "}]',
        format_numbers: 'false',
      }),
    ).toMatchObject({
      customSpelling: [{ from: ['k eight s'], to: 'K8s' }],
      formatNumbers: false,
    });
  });

  it('names the field it refuses', () => {
    const refusal = (fields: Record<string, string>) => {
      try {
        parseTextOptions(fields);
      } catch (error) {
        return (error as ProblemException).extensions;
      }
      return null;
    };
    expect(refusal({ redact_pii: 'true', redact_pii_policies: 'passport_number' })).toMatchObject({
      errors: { fieldErrors: { redact_pii_policies: [expect.stringContaining('"passport_number"')] } },
    });
    expect(refusal({ redact_pii_audio: 'true' })).toMatchObject({
      errors: { fieldErrors: { redact_pii_audio: ['redact_pii_audio needs redact_pii=true'] } },
    });
  });
});
