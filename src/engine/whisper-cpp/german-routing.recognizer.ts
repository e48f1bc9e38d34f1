import type { RecognitionChunk, RecognitionOptions, RecognitionOutput, Recognizer } from '../engine.types';

/**
 * A premium tier's two Whisper models behind one recogniser: German audio goes to the German fine-tune,
 * everything else to the general model.
 *
 * - language `de` given: the German model only;
 * - language `auto`: the general model transcribes the chunk and detects its language (whisper.cpp's own
 *   detection); a chunk detected as German is transcribed again by the German model with language `de`, whose
 *   words replace the general model's. So German audio sent as `auto` costs both models' time for its chunks;
 *   callers who know the language save that by sending `de`;
 * - any other language: the general model only.
 *
 * Routing is per chunk, so a file that changes language is followed. Both models start their servers lazily,
 * so a job that never meets German never loads the German model.
 */
export class GermanRoutingRecognizer implements Recognizer {
  readonly name: string;
  readonly languages: Recognizer['languages'];

  constructor(
    private readonly general: Recognizer,
    private readonly german: Recognizer,
  ) {
    this.name = `${general.name} (German audio: German model)`;
    this.languages = general.languages;
  }

  async recognize(chunk: RecognitionChunk, options: RecognitionOptions): Promise<RecognitionOutput> {
    const language = options.language.toLowerCase();
    if (language === 'de') return this.german.recognize(chunk, options);
    const output = await this.general.recognize(chunk, options);
    if (language !== 'auto' || output.detectedLanguage !== 'de') return output;
    const german = await this.german.recognize(chunk, { ...options, language: 'de' });
    return { ...german, detectedLanguage: 'de' };
  }

  async close(): Promise<void> {
    await Promise.all([this.general.close(), this.german.close()]);
  }
}
