import * as fs from 'node:fs';

/** The file-system questions tier resolution asks; tests use the real file system with temporary folders. */
export const installedFiles = {
  isFile(file: string): boolean {
    try {
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
  isExecutable(file: string): boolean {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  },
};

/** Why a catalogue model is not there, with the command that installs it: for resolution messages. */
export function notInstalledMessage(modelsDir: string, name: string): string {
  return `'${name}' is not installed in MODELS_DIR=${modelsDir} (node dist/cli.js models:pull ${name})`;
}
