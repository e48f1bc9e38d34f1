import * as path from 'node:path';
import { DEFAULT_MAX_PROMPT_CHARS } from '../whisper-family/initial-prompt.builder';

/**
 * How to run whisper.cpp locally. Its descriptor (whisper-cpp.descriptor.ts) builds it per tier from the
 * WHISPER_CPP_* variables (whisper-cpp.config.ts): WHISPER_CPP_BIN_DIR (→ binaryPath via whisperServerPath),
 * the tier's model, WHISPER_CPP_THREADS.
 */
export interface WhisperCppRecognizerSettings {
  /** The whisper-server executable; scripts/build-whisper-cpp.sh installs it into <repo>/.tools/whisper.cpp/bin. */
  binaryPath: string;
  /** A ggml Whisper model file, e.g. /var/lib/whisper/ggml-large-v3-turbo.bin. */
  modelPath: string;
  /** Compute threads of the job, shared by its whisper-server processes. */
  threads: number;
  /** A chunk's request is given up after this long (ENGINE_TIMEOUT) and its server killed. Default 10 minutes. */
  timeoutMs?: number;
  /** Vocabulary prompt budget in characters. */
  maxPromptChars?: number;
  /** Extra whisper-server arguments, e.g. ["-bs", "1"] (greedy, faster) or ["-nth", "0.8"]. */
  extraArgs?: readonly string[];
}

export const WHISPER_CPP_DEFAULT_TIMEOUT_MS = 10 * 60 * 1000;
export { DEFAULT_MAX_PROMPT_CHARS };

/** The repo's default install folder of scripts/build-whisper-cpp.sh. */
export function defaultWhisperCppBinDir(repoRoot: string): string {
  return path.join(repoRoot, '.tools', 'whisper.cpp', 'bin');
}

export function whisperCliPath(binDir: string): string {
  return path.join(binDir, 'whisper-cli');
}

export function whisperServerPath(binDir: string): string {
  return path.join(binDir, 'whisper-server');
}
