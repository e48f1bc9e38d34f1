import * as path from 'node:path';
import { Command, CommandRunner } from 'nest-commander';
import { ModelsConfig } from '../engine/models/models.config';
import {
  findModel,
  installedBytes,
  installedModelPath,
  loadCatalogue,
  ModelCatalogueError,
  type ModelEntry,
} from '../engine/models/model-catalogue';
import {
  ModelPullError,
  modelUrl,
  pullModel,
  type PullProgress,
  type PullRetry,
} from '../engine/models/model-downloader';
import { CliError, fail, printJson } from './cli-output';

const MIB = 1024 * 1024;

/** Lists the catalogue with what is installed in MODELS_DIR. Reads the disk only: no network I/O. */
@Command({
  name: 'models:list',
  description: 'Known models (whisper.cpp, sherpa-onnx diarization) and which are installed',
})
export class ModelsListCommand extends CommandRunner {
  constructor(private readonly config: ModelsConfig) {
    super();
  }

  async run(): Promise<void> {
    const catalogue = catalogueOf(this.config);
    const modelsDir = path.resolve(this.config.MODELS_DIR);
    printJson({
      modelsDir,
      models: catalogue.map((entry) => ({
        name: entry.name,
        kind: entry.kind,
        file: entry.fileName,
        bytes: installedBytes(entry),
        size: humanSize(installedBytes(entry)),
        download: modelUrl(entry, this.config.MODELS_SOURCE_URL),
        licence: entry.licence,
        installed: installedModelPath(modelsDir, entry.name, catalogue) !== null,
        pullable: entry.checksum !== null,
        note: entry.note,
      })),
    });
    return Promise.resolve();
  }
}

/**
 * Downloads one model into MODELS_DIR and verifies it. Prints one JSON line on success; on failure one JSON
 * line `{"error", "code"}` on stderr and exit code 1. The progress bar goes to stderr, only on a terminal.
 */
@Command({
  name: 'models:pull',
  arguments: '<name>',
  description: 'Download a model into MODELS_DIR and verify its checksum',
})
export class ModelsPullCommand extends CommandRunner {
  constructor(private readonly config: ModelsConfig) {
    super();
  }

  async run(parameters: string[]): Promise<void> {
    const catalogue = catalogueOf(this.config);
    const name = parameters[0];
    const entry =
      findModel(catalogue, name) ??
      fail(jsonError(`unknown model '${name}'; models:list shows the known ones`, 'UNKNOWN_MODEL'));
    const bar = process.stderr.isTTY ? new ProgressBar(entry) : null;
    try {
      const result = await pullModel(entry, {
        modelsDir: path.resolve(this.config.MODELS_DIR),
        sourceBaseUrl: this.config.MODELS_SOURCE_URL,
        connectTimeoutMs: this.config.MODELS_CONNECT_TIMEOUT_MS,
        idleTimeoutMs: this.config.MODELS_IDLE_TIMEOUT_MS,
        maxAttemptsWithoutProgress: this.config.MODELS_MAX_ATTEMPTS_WITHOUT_PROGRESS,
        retryDelayMs: this.config.MODELS_RETRY_DELAY_MS,
        retryAfterMaxMs: this.config.MODELS_RETRY_AFTER_MAX_SECONDS * 1000,
        proxy: {
          httpsProxy: this.config.HTTPS_PROXY ?? this.config.https_proxy,
          httpProxy: this.config.HTTP_PROXY ?? this.config.http_proxy,
          noProxy: this.config.NO_PROXY ?? this.config.no_proxy,
        },
        onProgress: bar ? (progress) => bar.update(progress) : undefined,
        onRetry: bar ? (retry) => bar.retrying(retry) : undefined,
      });
      bar?.finish();
      printJson({
        pulled: result.name,
        path: result.path,
        bytes: result.bytes,
        alreadyInstalled: result.alreadyInstalled,
        resumedFrom: result.resumedFrom,
        url: result.url,
        checksum: `${result.checksum.algorithm}:${result.checksum.hex}`,
      });
    } catch (error) {
      bar?.finish();
      if (error instanceof ModelPullError) fail(jsonError(error.message, error.code));
      throw error;
    }
  }
}

function catalogueOf(config: ModelsConfig): ModelEntry[] {
  try {
    return loadCatalogue(config.MODELS_EXTRA_CATALOGUE);
  } catch (error) {
    if (error instanceof ModelCatalogueError) throw new CliError(jsonError(error.message, 'BAD_CATALOGUE'));
    throw error;
  }
}

/** Failures are one JSON line too (cli.ts prints CliError messages on stderr), so scripts can parse them. */
function jsonError(message: string, code: string): string {
  return JSON.stringify({ error: message, code });
}

function humanSize(bytes: number): string {
  return bytes >= 1024 * MIB ? `${(bytes / (1024 * MIB)).toFixed(1)} GiB` : `${Math.round(bytes / MIB)} MiB`;
}

/** One redrawn stderr line, at most ten times a second, so a terminal shows progress without flooding logs. */
class ProgressBar {
  private lastDraw = 0;
  private readonly started = Date.now();
  private firstReceived: number | null = null;

  constructor(private readonly entry: ModelEntry) {}

  update({ received, total }: PullProgress): void {
    this.firstReceived ??= received;
    const now = Date.now();
    if (now - this.lastDraw < 100 && received < total) return;
    this.lastDraw = now;
    const width = 30;
    const done = Math.min(width, Math.floor((received / total) * width));
    const seconds = Math.max(0.001, (now - this.started) / 1000);
    const rate = (received - this.firstReceived) / MIB / seconds;
    process.stderr.write(
      `\r${this.entry.name} [${'#'.repeat(done)}${'.'.repeat(width - done)}] ` +
        `${((received / total) * 100).toFixed(0).padStart(3)}% ${(received / MIB).toFixed(1)}/${(total / MIB).toFixed(1)} MiB ` +
        `${rate.toFixed(1)} MiB/s `,
    );
  }

  /** A wait before the next attempt gets its own line, so a pull that seems stuck says why. */
  retrying({ reason, waitMs, attemptsWithoutProgress }: PullRetry): void {
    this.finish();
    this.lastDraw = 0;
    process.stderr.write(
      `${this.entry.name}: ${reason}; trying again in ${(waitMs / 1000).toFixed(1)} s ` +
        `(attempt ${attemptsWithoutProgress + 1} without progress)\n`,
    );
  }

  finish(): void {
    if (this.lastDraw > 0) process.stderr.write('\n');
  }
}
