import { IsObject } from 'class-validator';

/** PATCH /v1/transcriptions/{id}: the names of the transcript's speakers (checked by checkSpeakerNames). */
export class UpdateTranscriptionDto {
  @IsObject({ message: 'speakerNames must be an object of speaker ids to names' })
  speakerNames: Record<string, unknown>;
}
