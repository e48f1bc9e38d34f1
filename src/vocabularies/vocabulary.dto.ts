import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsOptional,
  IsString,
  Length,
  MinLength,
} from 'class-validator';

export class CreateVocabularyDto {
  @IsString()
  @Length(1, 100)
  name: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsString({ each: true })
  @MinLength(1, { each: true, message: 'each word must be at least 1 character' })
  words: string[];
}

/** Both fields optional; a body with neither is refused by the service (documented decision). */
export class UpdateVocabularyDto {
  @IsOptional()
  @IsString()
  @Length(1, 100)
  name?: string;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(500)
  @IsString({ each: true })
  @MinLength(1, { each: true, message: 'each word must be at least 1 character' })
  words?: string[];
}
