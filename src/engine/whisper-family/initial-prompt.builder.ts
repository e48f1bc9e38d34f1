/**
 * The initial prompt a Whisper-family recogniser gets: the custom vocabulary as a list ("Kubernetes, Grafana,
 * ...") and the caller's own free-text prompt (the OpenAI-compatible route's `prompt`) after it, closest to
 * the audio, as the text that "came before". Whisper only looks at the last 224 prompt tokens, and hosted APIs
 * reject longer prompts, so the whole stays within a character budget (about 4 characters per token in
 * English): the caller's prompt first (its end, from a word boundary, when it alone is too long), then as
 * many whole vocabulary words as still fit.
 */
export const DEFAULT_MAX_PROMPT_CHARS = 800;

export function buildInitialPrompt(
  vocabulary: readonly string[],
  prompt: string | null | undefined,
  maxChars = DEFAULT_MAX_PROMPT_CHARS,
): string {
  const callers = tail(tidy(prompt ?? ''), maxChars);
  if (callers === '') return buildVocabularyPrompt(vocabulary, maxChars);
  const separator = '. ';
  const words = buildVocabularyPrompt(vocabulary, maxChars - callers.length - separator.length);
  return words === '' ? callers : `${words}${separator}${callers}`;
}

/** The vocabulary alone: whole words joined with commas, within `maxChars`. */
export function buildVocabularyPrompt(
  vocabulary: readonly string[],
  maxChars = DEFAULT_MAX_PROMPT_CHARS,
): string {
  const parts: string[] = [];
  let length = 0;
  for (const raw of vocabulary) {
    const word = tidy(raw);
    if (word === '') continue;
    const added = (parts.length > 0 ? 2 : 0) + word.length;
    if (length + added > maxChars) break;
    parts.push(word);
    length += added;
  }
  return parts.join(', ');
}

const tidy = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The last `maxChars` characters of `text`, starting at a word (Whisper, too, keeps a prompt's end). */
function tail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.slice(text.length - maxChars);
  const space = cut.indexOf(' ');
  return space === -1 ? cut : cut.slice(space + 1);
}
