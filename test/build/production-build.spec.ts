import * as path from 'node:path';
import * as ts from 'typescript';

/**
 * What `npm run build` puts in dist/: the files of tsconfig.build.json and everything they import. Test code
 * (specs of every tier, test/ helpers) and test-only hooks must not be among them.
 */
const ROOT = path.resolve(__dirname, '..', '..');

function productionSources(): ts.SourceFile[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.build.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error('tsconfig.build.json could not be read');
  const program = ts.createProgram(parsed.fileNames, { ...parsed.options, noEmit: true });
  return program
    .getSourceFiles()
    .filter((file) => !file.isDeclarationFile && !file.fileName.includes('/node_modules/'));
}

describe('the production build (tsconfig.build.json)', () => {
  const sources = productionSources();
  const relative = (file: ts.SourceFile): string => path.relative(ROOT, file.fileName);

  it('compiles the service sources', () => {
    expect(sources.map(relative)).toEqual(expect.arrayContaining(['src/main.ts', 'src/cli.ts']));
  });

  it('compiles no test of any tier and nothing from test/', () => {
    const testCode = sources
      .map(relative)
      .filter((file) => /(\.|-)spec\.ts$/.test(file) || file.startsWith('test/') || /\/testing\//.test(file));
    expect(testCode).toEqual([]);
  });

  it('carries no test-only hooks in its types or code', () => {
    const hooks = sources
      .filter((file) => /for_?testing|testonly/i.test(file.text))
      .map((file) => `${relative(file)}: ${/.*(for_?testing|testonly).*/i.exec(file.text)?.[0].trim()}`);
    expect(hooks).toEqual([]);
  });
});
