/**
 * Whisper's 99 languages in its own order, keyed by the service's codes (src/languages: ISO 639-1, so
 * Javanese is `jv` where Whisper says `jw`), with the English names OpenAI-style servers return in `language`.
 * Cantonese (`yue`) is left out: only large-v3 knows it and the service does not offer it.
 */
export const WHISPER_LANGUAGES: ReadonlyMap<string, string> = new Map([
  ['en', 'english'],
  ['zh', 'chinese'],
  ['de', 'german'],
  ['es', 'spanish'],
  ['ru', 'russian'],
  ['ko', 'korean'],
  ['fr', 'french'],
  ['ja', 'japanese'],
  ['pt', 'portuguese'],
  ['tr', 'turkish'],
  ['pl', 'polish'],
  ['ca', 'catalan'],
  ['nl', 'dutch'],
  ['ar', 'arabic'],
  ['sv', 'swedish'],
  ['it', 'italian'],
  ['id', 'indonesian'],
  ['hi', 'hindi'],
  ['fi', 'finnish'],
  ['vi', 'vietnamese'],
  ['he', 'hebrew'],
  ['uk', 'ukrainian'],
  ['el', 'greek'],
  ['ms', 'malay'],
  ['cs', 'czech'],
  ['ro', 'romanian'],
  ['da', 'danish'],
  ['hu', 'hungarian'],
  ['ta', 'tamil'],
  ['no', 'norwegian'],
  ['th', 'thai'],
  ['ur', 'urdu'],
  ['hr', 'croatian'],
  ['bg', 'bulgarian'],
  ['lt', 'lithuanian'],
  ['la', 'latin'],
  ['mi', 'maori'],
  ['ml', 'malayalam'],
  ['cy', 'welsh'],
  ['sk', 'slovak'],
  ['te', 'telugu'],
  ['fa', 'persian'],
  ['lv', 'latvian'],
  ['bn', 'bengali'],
  ['sr', 'serbian'],
  ['az', 'azerbaijani'],
  ['sl', 'slovenian'],
  ['kn', 'kannada'],
  ['et', 'estonian'],
  ['mk', 'macedonian'],
  ['br', 'breton'],
  ['eu', 'basque'],
  ['is', 'icelandic'],
  ['hy', 'armenian'],
  ['ne', 'nepali'],
  ['mn', 'mongolian'],
  ['bs', 'bosnian'],
  ['kk', 'kazakh'],
  ['sq', 'albanian'],
  ['sw', 'swahili'],
  ['gl', 'galician'],
  ['mr', 'marathi'],
  ['pa', 'punjabi'],
  ['si', 'sinhala'],
  ['km', 'khmer'],
  ['sn', 'shona'],
  ['yo', 'yoruba'],
  ['so', 'somali'],
  ['af', 'afrikaans'],
  ['oc', 'occitan'],
  ['ka', 'georgian'],
  ['be', 'belarusian'],
  ['tg', 'tajik'],
  ['sd', 'sindhi'],
  ['gu', 'gujarati'],
  ['am', 'amharic'],
  ['yi', 'yiddish'],
  ['lo', 'lao'],
  ['uz', 'uzbek'],
  ['fo', 'faroese'],
  ['ht', 'haitian creole'],
  ['ps', 'pashto'],
  ['tk', 'turkmen'],
  ['nn', 'nynorsk'],
  ['mt', 'maltese'],
  ['sa', 'sanskrit'],
  ['lb', 'luxembourgish'],
  ['my', 'myanmar'],
  ['bo', 'tibetan'],
  ['tl', 'tagalog'],
  ['mg', 'malagasy'],
  ['as', 'assamese'],
  ['tt', 'tatar'],
  ['haw', 'hawaiian'],
  ['ln', 'lingala'],
  ['ha', 'hausa'],
  ['ba', 'bashkir'],
  ['jv', 'javanese'],
  ['su', 'sundanese'],
]);

/** Names some servers use instead of Whisper's own (from openai/whisper's tokenizer aliases). */
const LANGUAGE_ALIASES: ReadonlyMap<string, string> = new Map([
  ['burmese', 'my'],
  ['valencian', 'ca'],
  ['flemish', 'nl'],
  ['haitian', 'ht'],
  ['letzeburgesch', 'lb'],
  ['pushto', 'ps'],
  ['panjabi', 'pa'],
  ['moldavian', 'ro'],
  ['moldovan', 'ro'],
  ['sinhalese', 'si'],
  ['castilian', 'es'],
  ['mandarin', 'zh'],
  ['norwegian bokmal', 'no'],
  ['jw', 'jv'],
]);

const CODE_BY_NAME: ReadonlyMap<string, string> = new Map([
  ...[...WHISPER_LANGUAGES].map(([code, name]): [string, string] => [name, code]),
  ...LANGUAGE_ALIASES,
]);

export function isWhisperLanguage(code: string): boolean {
  return WHISPER_LANGUAGES.has(code);
}

/** The code Whisper engines expect for one of the service's codes (only Javanese differs). */
export function toWhisperEngineLanguage(code: string): string {
  return code === 'jv' ? 'jw' : code;
}

/**
 * Turns what an engine reports ("english", "English", "en", "en-US") into one of the 99 codes, or null when it
 * names no language Whisper knows.
 */
export function toWhisperLanguageCode(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  const v = value.trim().toLowerCase().replace(/_/g, '-');
  if (v === '') return null;
  if (WHISPER_LANGUAGES.has(v)) return v;
  // whisper.cpp reports its own codes ("jw"); aliases cover those too.
  const byName = CODE_BY_NAME.get(v);
  if (byName) return byName;
  // BCP 47 tags such as "en-US" or "zh-Hans".
  const primary = v.split('-')[0];
  if (WHISPER_LANGUAGES.has(primary)) return primary;
  return CODE_BY_NAME.get(primary) ?? null;
}
