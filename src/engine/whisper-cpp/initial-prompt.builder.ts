/**
 * The custom vocabulary as a Whisper initial prompt ("Kubernetes, Grafana, ..."). Whisper only looks at the
 * last 224 prompt tokens, and hosted APIs reject longer prompts, so whole words are kept up to a character
 * budget (about 4 characters per token in English).
 */
export const DEFAULT_MAX_PROMPT_CHARS = 800;

export function buildVocabularyPrompt(
  vocabulary: readonly string[],
  maxChars = DEFAULT_MAX_PROMPT_CHARS,
): string {
  const parts: string[] = [];
  let length = 0;
  for (const raw of vocabulary) {
    const word = raw.replace(/\s+/g, ' ').trim();
    if (word === '') continue;
    const added = (parts.length > 0 ? 2 : 0) + word.length;
    if (length + added > maxChars) break;
    parts.push(word);
    length += added;
  }
  return parts.join(', ');
}
