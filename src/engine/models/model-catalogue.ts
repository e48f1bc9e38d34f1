import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The models `node dist/cli.js models:pull NAME` can install into MODELS_DIR, with pinned sizes and checksums.
 *
 * Where the numbers come from (none is taken on trust from one place; each was read in public sources while
 * writing this file):
 * - whisper.cpp ggml files: SHA-256 and byte size are Hugging Face's Git LFS object id and size for
 *   `ggerganov/whisper.cpp` (the value HF itself returns as `X-Linked-ETag`), as quoted by several independent
 *   public repositories that pin them; every one of them agreed. whisper.cpp's own `models/README.md` lists a
 *   SHA-1 per file; it is kept in the note of the files it covers, for a manual `sha1sum` cross-check. The URLs
 *   name the repository commit (WHISPER_CPP_HF_REVISION), not `main`: a branch can move under a pinned checksum,
 *   a commit cannot. That commit is the one those public repositories pin with these same sizes and SHA-256s.
 * - sherpa-onnx diarization files (k2-fsa/sherpa-onnx GitHub releases): SHA-256 and sizes as pinned by several
 *   independent public repositories that agree with each other. The releases publish no checksum file, so
 *   there is no upstream list to compare with; the pinned checksum is what makes a replaced asset fail.
 * - the German fine-tune (large-v3-turbo-german-q5_0): see its entry.
 *
 * A mirror (MODELS_SOURCE_URL) must serve the same paths, revision included: `<mirror>/<source.path>` (Hugging
 * Face mirrors answer `resolve/<commit>/` as Hugging Face does).
 */

export type ModelKind = 'whisper-ggml' | 'sherpa-diarization-segmentation' | 'sherpa-diarization-embedding';

export const MODEL_KINDS: readonly ModelKind[] = [
  'whisper-ggml',
  'sherpa-diarization-segmentation',
  'sherpa-diarization-embedding',
];

export type ChecksumAlgorithm = 'sha256' | 'sha1';

export interface ModelChecksum {
  algorithm: ChecksumAlgorithm;
  /** Lower-case hex digest. */
  hex: string;
}

/** A model shipped inside an archive: the archive is downloaded and verified, then this one member is kept. */
export interface ArchiveMember {
  format: 'tar.bz2';
  /** Path of the member inside the archive; it is installed under MODELS_DIR at the entry's `fileName`. */
  member: string;
  bytes: number;
  checksum: ModelChecksum;
}

export interface ModelEntry {
  name: string;
  kind: ModelKind;
  /** Where the installed file lives, relative to MODELS_DIR (the file tiers and diarizers load). */
  fileName: string;
  /** The official download: `origin` + '/' + `path`. A mirror serves the same `path`. */
  source: { origin: string; path: string };
  /** Size of the downloaded file (the archive, for archive entries). */
  bytes: number;
  /** Checksum of the downloaded file. null: no public pinned checksum is known, so it is never downloaded. */
  checksum: ModelChecksum | null;
  /** Set when the download is an archive holding the model file. */
  archive?: ArchiveMember;
  licence: string;
  note: string;
}

const HF = 'https://huggingface.co';
const GITHUB = 'https://github.com';
/**
 * The commit of huggingface.co/ggerganov/whisper.cpp the whisper entries are fetched at. Many independent
 * public projects pin this commit with the sizes and SHA-256s below (seen for tiny, tiny.en, base, base.en,
 * small, medium, large-v3, large-v3-turbo and its -q5_0/-q8_0; small.en is a file of the same commit).
 */
export const WHISPER_CPP_HF_REVISION = '5359861c739e955e79d9a303bcbc70fb988958b1';
const WHISPER_PATH = `ggerganov/whisper.cpp/resolve/${WHISPER_CPP_HF_REVISION}`;
/** The German fine-tune's ggml repository and the commit its file is fetched at. */
const GERMAN_TURBO_REPOSITORY = 'MolyProduction/whisper-large-v3-turbo-german-ggml-q5_0';
const GERMAN_TURBO_REVISION = '8ca650615c50e0d16a49de2bf707d2791242d829';
const SHERPA_RELEASES = 'k2-fsa/sherpa-onnx/releases/download';

function whisper(name: string, bytes: number, sha256: string, note: string): ModelEntry {
  const fileName = `ggml-${name}.bin`;
  return {
    name,
    kind: 'whisper-ggml',
    fileName,
    source: { origin: HF, path: `${WHISPER_PATH}/${fileName}` },
    bytes,
    checksum: { algorithm: 'sha256', hex: sha256 },
    // OpenAI released the Whisper weights under MIT; ggerganov/whisper.cpp on HF is tagged MIT too.
    licence: 'MIT',
    note,
  };
}

export const MODEL_CATALOGUE: readonly ModelEntry[] = [
  whisper(
    'tiny',
    77_691_713,
    'be07e048e1e599ad46341c8d2a135645097a538221678b7acdd1b1919c6e1b21',
    'multilingual; whisper.cpp README SHA-1 bd577a113a864445d4c299885e0cb97d4ba92b5f',
  ),
  whisper(
    'tiny.en',
    77_704_715,
    '921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f',
    'English only; whisper.cpp README SHA-1 c78c86eb1a8faa21b369bcd33207cc90d64ae9df',
  ),
  whisper(
    'base',
    147_951_465,
    '60ed5bc3dd14eea856493d334349b405782ddcaf0028d4b5df4088345fba2efe',
    'multilingual, the quick-start default (fast on CPU); whisper.cpp README SHA-1 465707469ff3a37a2b9b8d8f89f2f99de7299dac',
  ),
  whisper(
    'base.en',
    147_964_211,
    'a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002',
    'English only; whisper.cpp README SHA-1 137c40403d78fd54d454da0f9bd998f78703390c',
  ),
  whisper(
    'small',
    487_601_967,
    '1be3a9b2063867b937e64e2ec7483364a79917e157fa98c5d94b5c1fffea987b',
    'multilingual; whisper.cpp README SHA-1 55356645c2b361a969dfd0ef2c5a50d530afd8d5',
  ),
  whisper(
    'small.en',
    487_614_201,
    'c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d',
    'English only; whisper.cpp README SHA-1 db8a495a91d927739e50b3fc1cc4c6b8f6c2d022',
  ),
  whisper(
    'medium',
    1_533_763_059,
    '6c14d5adee5f86394037b4e4e8b59f1673b6cee10e3cf0b11bbdbee79c156208',
    'multilingual; whisper.cpp README SHA-1 fd9727b6e1217c2f614f9b698455c4ffd82463b4',
  ),
  whisper(
    'large-v3',
    3_095_033_483,
    '64d182b440b98d5203c4f9bd541544d84c605196c4f7b845dfa11fb23594d1e2',
    'multilingual, slowest on CPU; whisper.cpp README SHA-1 ad82bf6a9043ceed055076d0fd39f5f186ff8062',
  ),
  whisper(
    'large-v3-turbo',
    1_624_555_275,
    '1fc70f774d38eb169993ac391eea357ef47c88757ef72ee5943879b7e8e2bc69',
    'multilingual, f16; whisper.cpp README SHA-1 4af2b29d7ec73d781377bfd1758ca957a807e941',
  ),
  whisper(
    'large-v3-turbo-q5_0',
    574_041_195,
    '394221709cd5ad1f40c46e6031ca61bce88931e6e088c188294c6d5a55ffa7e2',
    'multilingual, 5-bit quantised: best quality per CPU second; whisper.cpp README SHA-1 e050f7970618a659205450ad97eb95a18d69c9ee',
  ),
  whisper(
    'large-v3-turbo-q8_0',
    874_188_075,
    '317eb69c11673c9de1e1f0d459b253999804ec71ac4c23c17ecf5fbe24e259a1',
    'multilingual, 8-bit quantised (not in whisper.cpp README; SHA-256 from the HF LFS pointer only)',
  ),
  {
    name: 'large-v3-turbo-german-q5_0',
    kind: 'whisper-ggml',
    fileName: 'ggml-large-v3-turbo-german-q5_0.bin',
    source: {
      origin: HF,
      path: `${GERMAN_TURBO_REPOSITORY}/resolve/${GERMAN_TURBO_REVISION}/ggml-large-v3-turbo-german-q5_0.bin`,
    },
    bytes: 574_041_195,
    checksum: {
      algorithm: 'sha256',
      hex: '15e92e3db0993c52fffa781513eec9253475331c1be808f8fb409285c9d9d030',
    },
    // primeline/whisper-large-v3-turbo-german is Apache-2.0; the ggml conversion carries the same licence.
    licence: 'Apache-2.0',
    note:
      'German: primeline/whisper-large-v3-turbo-german (its card: Tuda-De WER 6.4 % vs 8.3 % for the general ' +
      'turbo) as ggml q5_0; the premium tiers route German audio to it. Size and SHA-256 as pinned by several ' +
      'public projects (the repository publishes no checksum file)',
  },
  {
    name: 'pyannote-segmentation-3-0',
    kind: 'sherpa-diarization-segmentation',
    fileName: 'sherpa-onnx-pyannote-segmentation-3-0/model.onnx',
    source: {
      origin: GITHUB,
      path: `${SHERPA_RELEASES}/speaker-segmentation-models/sherpa-onnx-pyannote-segmentation-3-0.tar.bz2`,
    },
    bytes: 6_958_444,
    checksum: {
      algorithm: 'sha256',
      hex: '24615ee884c897d9d2ba09bb4d30da6bb1b15e685065962db5b02e76e4996488',
    },
    archive: {
      format: 'tar.bz2',
      member: 'sherpa-onnx-pyannote-segmentation-3-0/model.onnx',
      bytes: 5_992_913,
      checksum: {
        algorithm: 'sha256',
        hex: '220ad67ca923bef2fa91f2390c786097bf305bceb5e261d4af67b38e938e1079',
      },
    },
    licence: 'MIT',
    note: 'pyannote/segmentation-3.0 exported to ONNX by sherpa-onnx; the archive is unpacked with the system tar (bzip2)',
  },
  {
    name: '3dspeaker-eres2net-base',
    kind: 'sherpa-diarization-embedding',
    fileName: '3dspeaker_speech_eres2net_base_sv_zh-cn_3dspeaker_16k.onnx',
    source: {
      origin: GITHUB,
      path: `${SHERPA_RELEASES}/speaker-recongition-models/3dspeaker_speech_eres2net_base_sv_zh-cn_3dspeaker_16k.onnx`,
    },
    bytes: 39_593_761,
    checksum: {
      algorithm: 'sha256',
      hex: '1a331345f04805badbb495c775a6ddffcdd1a732567d5ec8b3d5749e3c7a5e4b',
    },
    licence: 'Apache-2.0',
    note: '3D-Speaker ERes2Net speaker embedding (trained on Mandarin, used for any language)',
  },
  {
    name: 'nemo-titanet-small-en',
    kind: 'sherpa-diarization-embedding',
    fileName: 'nemo_en_titanet_small.onnx',
    source: {
      origin: GITHUB,
      path: `${SHERPA_RELEASES}/speaker-recongition-models/nemo_en_titanet_small.onnx`,
    },
    bytes: 40_257_283,
    checksum: {
      algorithm: 'sha256',
      hex: 'ad4a1802485d8b34c722d2a9d04249662f2ece5d28a7a039063ca22f515a789e',
    },
    licence: 'CC-BY-4.0',
    note: 'NVIDIA NeMo TitaNet-S speaker embedding (English)',
  },
];

/** The quick start pulls this one: multilingual and small enough (142 MiB) for a first run. */
export const DEFAULT_WHISPER_MODEL = 'base';

export class ModelCatalogueError extends Error {}

export function findModel(catalogue: readonly ModelEntry[], name: string): ModelEntry | undefined {
  return catalogue.find((entry) => entry.name === name);
}

/**
 * Path of the installed file of `name`, or null when it is not installed (or not in the catalogue). A file is
 * only ever renamed into place after its checksum matched, so presence plus the pinned size means installed;
 * the size check catches a file truncated or replaced by hand without re-hashing gigabytes on every call.
 */
export function installedModelPath(
  modelsDir: string,
  name: string,
  catalogue: readonly ModelEntry[] = MODEL_CATALOGUE,
): string | null {
  const entry = findModel(catalogue, name);
  if (!entry) return null;
  const file = path.resolve(modelsDir, entry.fileName);
  try {
    const stat = fs.statSync(file);
    return stat.isFile() && stat.size === installedBytes(entry) ? file : null;
  } catch {
    return null;
  }
}

/** Size of the installed file (the archive member for archive entries). */
export function installedBytes(entry: ModelEntry): number {
  return entry.archive ? entry.archive.bytes : entry.bytes;
}

/**
 * The built-in catalogue plus the operator's extra entries (MODELS_EXTRA_CATALOGUE: a JSON array of entries in
 * the same shape, for private models on a mirror). Extra entries must name a checksum and may not reuse a
 * built-in name, so a file can never silently replace what a built-in name means.
 */
export function loadCatalogue(extraCatalogueFile?: string): ModelEntry[] {
  if (!extraCatalogueFile) return [...MODEL_CATALOGUE];
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(extraCatalogueFile, 'utf8'));
  } catch (error) {
    throw new ModelCatalogueError(
      `MODELS_EXTRA_CATALOGUE ${extraCatalogueFile}: cannot read it as JSON (${(error as Error).message})`,
    );
  }
  if (!Array.isArray(raw))
    throw new ModelCatalogueError(`MODELS_EXTRA_CATALOGUE ${extraCatalogueFile}: expected a JSON array`);
  const catalogue = [...MODEL_CATALOGUE];
  raw.forEach((item: unknown, index) => {
    const entry = parseEntry(item, `MODELS_EXTRA_CATALOGUE ${extraCatalogueFile} [${index}]`);
    if (findModel(catalogue, entry.name))
      throw new ModelCatalogueError(`model name '${entry.name}' is already in the catalogue`);
    catalogue.push(entry);
  });
  return catalogue;
}

function parseEntry(item: unknown, where: string): ModelEntry {
  const bad = (why: string): never => {
    throw new ModelCatalogueError(`${where}: ${why}`);
  };
  if (typeof item !== 'object' || item === null) return bad('expected an object');
  const record = item as Record<string, unknown>;
  const text = (key: string): string => {
    const value = record[key];
    return typeof value === 'string' && value.trim() !== ''
      ? value
      : bad(`'${key}' must be a non-empty string`);
  };
  const name = text('name');
  const kind = text('kind') as ModelKind;
  if (!MODEL_KINDS.includes(kind)) bad(`'kind' must be one of ${MODEL_KINDS.join(', ')}`);
  const fileName = relativePath(text('fileName'), `${where} fileName`);
  const source = record.source as Record<string, unknown> | undefined;
  if (typeof source !== 'object' || source === null) return bad("'source' must be {origin, path}");
  if (typeof source.origin !== 'string' || !/^https?:\/\//.test(source.origin))
    bad("'source.origin' must be an http(s) URL");
  if (typeof source.path !== 'string' || source.path === '') bad("'source.path' must be a non-empty string");
  const bytes = positiveInteger(record.bytes, `${where} bytes`);
  const checksum = parseChecksum(record.checksum, `${where} checksum`);
  const entry: ModelEntry = {
    name,
    kind,
    fileName,
    source: {
      origin: (source.origin as string).replace(/\/+$/, ''),
      path: (source.path as string).replace(/^\/+/, ''),
    },
    bytes,
    checksum,
    licence: text('licence'),
    note: typeof record.note === 'string' ? record.note : '',
  };
  if (record.archive !== undefined) {
    const archive = record.archive as Record<string, unknown>;
    if (typeof archive !== 'object' || archive === null || archive.format !== 'tar.bz2')
      bad("'archive.format' must be 'tar.bz2'");
    entry.archive = {
      format: 'tar.bz2',
      member: relativePath(
        typeof archive.member === 'string' ? archive.member : '',
        `${where} archive.member`,
      ),
      bytes: positiveInteger(archive.bytes, `${where} archive.bytes`),
      checksum: parseChecksum(archive.checksum, `${where} archive.checksum`),
    };
  }
  return entry;
}

function parseChecksum(value: unknown, where: string): ModelChecksum {
  const record = value as Record<string, unknown> | null | undefined;
  const algorithm = record?.algorithm;
  const hex = typeof record?.hex === 'string' ? record.hex.toLowerCase() : '';
  const pattern = algorithm === 'sha256' ? /^[0-9a-f]{64}$/ : algorithm === 'sha1' ? /^[0-9a-f]{40}$/ : null;
  if (!pattern?.test(hex))
    throw new ModelCatalogueError(
      `${where}: must be {algorithm: 'sha256'|'sha1', hex} with a full hex digest`,
    );
  return { algorithm: algorithm as ChecksumAlgorithm, hex };
}

function positiveInteger(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new ModelCatalogueError(`${where}: must be a positive integer`);
  return value;
}

/** Installed paths stay inside MODELS_DIR: no absolute paths, no '..'. */
function relativePath(value: string, where: string): string {
  const normalised = path.posix.normalize(value);
  if (value === '' || path.isAbsolute(value) || normalised.startsWith('..') || normalised.includes('/../'))
    throw new ModelCatalogueError(`${where}: must be a relative path inside MODELS_DIR`);
  return normalised;
}
