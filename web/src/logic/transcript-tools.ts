/** Words below this confidence are marked in the transcript view (the recogniser was unsure of them). */
export const LOW_CONFIDENCE = 0.6;

export function isLowConfidence(word: { confidence?: number }): boolean {
  return word.confidence !== undefined && word.confidence < LOW_CONFIDENCE;
}

/** `m:ss`, or `h:mm:ss` from an hour on: a paragraph's start. */
export function clockTime(seconds: number): string {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = String(total % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${rest}` : `${minutes}:${rest}`;
}

const normalise = (text: string): string =>
  text
    .toLocaleLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}']+/gu, '');

/**
 * Where a search phrase occurs: the index of each match's first word and how many words it spans. Case,
 * accents and punctuation are ignored; the phrase's last word may be the start of a word ("kubern").
 */
export function searchTranscript(
  words: readonly { word: string }[],
  phrase: string,
): { first: number; length: number }[] {
  const tokens = phrase.split(/\s+/).map(normalise).filter(Boolean);
  if (tokens.length === 0) return [];
  const normalised = words.map((word) => normalise(word.word));
  const matches: { first: number; length: number }[] = [];
  for (let first = 0; first + tokens.length <= normalised.length; first++) {
    const found = tokens.every((token, offset) => {
      const word = normalised[first + offset];
      return offset === tokens.length - 1 ? word.startsWith(token) : word === token;
    });
    if (found) matches.push({ first, length: tokens.length });
  }
  return matches;
}

/**
 * Display names of raw speaker ids, as the exports label them: a name the workspace gave, else "Speaker N"
 * in order of first appearance.
 */
export function speakerLabels(
  words: readonly { speaker?: string | number | null }[],
  names: Readonly<Record<string, string>>,
): Map<string, string> {
  const labels = new Map<string, string>();
  for (const { speaker } of words) {
    if (speaker === null || speaker === undefined) continue;
    const id = String(speaker);
    if (!labels.has(id)) {
      labels.set(id, Object.hasOwn(names, id) ? names[id] : `Speaker ${labels.size + 1}`);
    }
  }
  return labels;
}
