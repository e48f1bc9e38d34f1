/**
 * The longest vocabulary entry (a word or a phrase), in characters, for saved vocabularies and the inline
 * `vocabulary` of an upload alike. Every entry becomes a dictionary word whose pronunciation grows with its
 * length, and the decoder's search tree grows with it: 500 entries of 2,080 letters made a 3 s job take minutes.
 * 64 characters hold the longest dictionary words and multi-word names; bench/vocabulary-cost.ts measures a full
 * vocabulary of entries this long.
 */
export const MAX_VOCABULARY_WORD_LENGTH = 64;
