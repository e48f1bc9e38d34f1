import type { Schema } from '../openapi/contract-types';

/**
 * The 99 languages Whisper supports, as ISO 639-1 codes where one exists (Whisper's own `jw` is written
 * `jv`, the ISO code; Hawaiian has no 639-1 code and keeps `haw`).
 */
const LANGUAGE_TABLE = [
  ['en', 'English'],
  ['zh', 'Chinese'],
  ['de', 'German'],
  ['es', 'Spanish'],
  ['ru', 'Russian'],
  ['ko', 'Korean'],
  ['fr', 'French'],
  ['ja', 'Japanese'],
  ['pt', 'Portuguese'],
  ['tr', 'Turkish'],
  ['pl', 'Polish'],
  ['ca', 'Catalan'],
  ['nl', 'Dutch'],
  ['ar', 'Arabic'],
  ['sv', 'Swedish'],
  ['it', 'Italian'],
  ['id', 'Indonesian'],
  ['hi', 'Hindi'],
  ['fi', 'Finnish'],
  ['vi', 'Vietnamese'],
  ['he', 'Hebrew'],
  ['uk', 'Ukrainian'],
  ['el', 'Greek'],
  ['ms', 'Malay'],
  ['cs', 'Czech'],
  ['ro', 'Romanian'],
  ['da', 'Danish'],
  ['hu', 'Hungarian'],
  ['ta', 'Tamil'],
  ['no', 'Norwegian'],
  ['th', 'Thai'],
  ['ur', 'Urdu'],
  ['hr', 'Croatian'],
  ['bg', 'Bulgarian'],
  ['lt', 'Lithuanian'],
  ['la', 'Latin'],
  ['mi', 'Maori'],
  ['ml', 'Malayalam'],
  ['cy', 'Welsh'],
  ['sk', 'Slovak'],
  ['te', 'Telugu'],
  ['fa', 'Persian'],
  ['lv', 'Latvian'],
  ['bn', 'Bengali'],
  ['sr', 'Serbian'],
  ['az', 'Azerbaijani'],
  ['sl', 'Slovenian'],
  ['kn', 'Kannada'],
  ['et', 'Estonian'],
  ['mk', 'Macedonian'],
  ['br', 'Breton'],
  ['eu', 'Basque'],
  ['is', 'Icelandic'],
  ['hy', 'Armenian'],
  ['ne', 'Nepali'],
  ['mn', 'Mongolian'],
  ['bs', 'Bosnian'],
  ['kk', 'Kazakh'],
  ['sq', 'Albanian'],
  ['sw', 'Swahili'],
  ['gl', 'Galician'],
  ['mr', 'Marathi'],
  ['pa', 'Punjabi'],
  ['si', 'Sinhala'],
  ['km', 'Khmer'],
  ['sn', 'Shona'],
  ['yo', 'Yoruba'],
  ['so', 'Somali'],
  ['af', 'Afrikaans'],
  ['oc', 'Occitan'],
  ['ka', 'Georgian'],
  ['be', 'Belarusian'],
  ['tg', 'Tajik'],
  ['sd', 'Sindhi'],
  ['gu', 'Gujarati'],
  ['am', 'Amharic'],
  ['yi', 'Yiddish'],
  ['lo', 'Lao'],
  ['uz', 'Uzbek'],
  ['fo', 'Faroese'],
  ['ht', 'Haitian Creole'],
  ['ps', 'Pashto'],
  ['tk', 'Turkmen'],
  ['nn', 'Nynorsk'],
  ['mt', 'Maltese'],
  ['sa', 'Sanskrit'],
  ['lb', 'Luxembourgish'],
  ['my', 'Myanmar'],
  ['bo', 'Tibetan'],
  ['tl', 'Tagalog'],
  ['mg', 'Malagasy'],
  ['as', 'Assamese'],
  ['tt', 'Tatar'],
  ['haw', 'Hawaiian'],
  ['ln', 'Lingala'],
  ['ha', 'Hausa'],
  ['ba', 'Bashkir'],
  ['jv', 'Javanese'],
  ['su', 'Sundanese'],
] as const satisfies ReadonlyArray<readonly [Schema<'LanguageCode'>, string]>;

export const LANGUAGES: ReadonlyArray<Schema<'Language'>> = LANGUAGE_TABLE.map(([code, name]) => ({
  code,
  name,
}));

/** As a literal type (99): the contract states the count. */
export const LANGUAGE_COUNT = LANGUAGE_TABLE.length;

/** Fails to compile when the contract's LanguageCode names a code this table does not serve. */
type Assert<Condition extends true> = Condition;
type _EveryContractLanguageServed = Assert<
  [Exclude<Schema<'LanguageCode'>, (typeof LANGUAGE_TABLE)[number][0]>] extends [never] ? true : false
>;

export const LANGUAGE_CODES: ReadonlySet<string> = new Set(LANGUAGES.map((language) => language.code));

/** The primary language subtag of a BCP-47 or POSIX-style tag, as a code of LANGUAGE_CODES reads it: `en-US`, `en_us` → `en`. */
export function primaryLanguageSubtag(tag: string): string {
  return tag.split(/[-_]/)[0].toLowerCase();
}
