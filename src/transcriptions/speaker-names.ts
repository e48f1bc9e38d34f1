import { ProblemException } from '../common/problem/problem.exception';
import { codePointLength, unstorableTextReason } from '../common/validation/stored-text';

export const MAX_SPEAKER_NAME_LENGTH = 100;

/**
 * Checks the names given to a transcript's speakers: each key is a raw speaker id of the transcript's words,
 * each value 1–100 characters after trimming, without control characters (a name is printed inside caption
 * lines, where a line break would split the cue). Answers the trimmed map; 422 `validation` naming
 * `speakerNames.<id>` otherwise.
 */
export function checkSpeakerNames(
  names: Readonly<Record<string, unknown>>,
  speakers: ReadonlySet<string>,
): Record<string, string> {
  const checked: Record<string, string> = {};
  for (const [speaker, raw] of Object.entries(names)) {
    const field = `speakerNames.${speaker}`;
    if (!speakers.has(speaker)) {
      throw ProblemException.field(
        field,
        `${field}: the transcript has no speaker ${JSON.stringify(speaker)}`,
      );
    }
    if (typeof raw !== 'string') throw ProblemException.field(field, `${field} must be a string`);
    const name = raw.trim();
    const length = codePointLength(name);
    if (length < 1 || length > MAX_SPEAKER_NAME_LENGTH) {
      throw ProblemException.field(field, `${field} must be 1 to ${MAX_SPEAKER_NAME_LENGTH} characters long`);
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/u.test(name)) {
      throw ProblemException.field(field, `${field} must not contain control characters or line breaks`);
    }
    const unstorable = unstorableTextReason(name);
    if (unstorable) throw ProblemException.field(field, `${field} ${unstorable}`);
    checked[speaker] = name;
  }
  return checked;
}
