import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsString,
  MinLength,
  NotContains,
} from 'class-validator';
import { IfPresent } from '../common/validation/if-present';
import { CodePointLength } from '../common/validation/stored-text';
import { MAX_VOCABULARY_WORD_LENGTH } from './vocabulary-word';

/** PostgreSQL text and jsonb cannot hold NUL; refused as a validation error instead of failing the insert. */
const NoNul = (each = false) =>
  NotContains('\u0000', {
    each,
    message: each ? 'words must not contain NUL characters' : 'name must not contain NUL characters',
  });

/** Each word or phrase at most MAX_VOCABULARY_WORD_LENGTH characters (Unicode code points). */
const WordLength = () =>
  CodePointLength(1, MAX_VOCABULARY_WORD_LENGTH, {
    each: true,
    message: `each word must be at most ${MAX_VOCABULARY_WORD_LENGTH} characters`,
  });


export class CreateVocabularyDto {
  @IsString()
  @CodePointLength(1, 100)
  @NoNul()
  name: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsString({ each: true })
  @MinLength(1, { each: true, message: 'each word must be at least 1 character' })
  @WordLength()
  @NoNul(true)
  words: string[];
}

/** Both fields optional; a body with neither is refused by the service (documented decision). */
export class UpdateVocabularyDto {
  @IfPresent()
  @IsString()
  @CodePointLength(1, 100)
  @NoNul()
  name?: string;

  @IfPresent()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsString({ each: true })
  @MinLength(1, { each: true, message: 'each word must be at least 1 character' })
  @WordLength()
  @NoNul(true)
  words?: string[];
}
