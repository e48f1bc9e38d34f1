import { IsString, NotContains } from 'class-validator';
import { CodePointLength } from '../common/validation/stored-text';

export class CreateApiKeyDto {
  @IsString()
  @CodePointLength(1, 100, { message: 'name must be 1 to 100 characters long' })
  @NotContains('\u0000', { message: 'name must not contain NUL characters' })
  name: string;
}
