import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min } from 'class-validator';
import { toInt } from '../../config/config-transformers';

/** The variables the whisper-cpp recogniser reads. */
export class WhisperCppConfig {
  /**
   * The ggml Whisper model of every tier that has no WHISPER_CPP_MODEL_<TIER>: a catalogue name installed in
   * MODELS_DIR (e.g. `base`) or a file path. Unset: each tier's default (standard `base`, premium tiers
   * `large-v3-turbo-q5_0`), used when installed.
   */
  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL?: string;

  /** The Whisper model of one tier (catalogue name or path); wins over WHISPER_CPP_MODEL. Empty = unset. */
  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_STANDARD?: string;

  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM?: string;

  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM_JADE?: string;

  /**
   * The German model of a premium tier (catalogue name or path): German audio, asked for or detected by the
   * tier's general model, is transcribed with it. Unset: `large-v3-turbo-german-q5_0` when installed, else
   * German stays on the general model.
   */
  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM_GERMAN?: string;

  @IsOptional()
  @IsString()
  WHISPER_CPP_MODEL_PREMIUM_JADE_GERMAN?: string;

  /** Folder with whisper-server and whisper-cli (scripts/build-whisper-cpp.sh installs them into .tools/whisper.cpp/bin). */
  @IsOptional()
  @IsString()
  WHISPER_CPP_BIN_DIR?: string;

  @Transform(toInt)
  @IsInt()
  @Min(1)
  WHISPER_CPP_THREADS = 2;
}
