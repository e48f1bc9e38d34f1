// Jest (CommonJS, Node 20) cannot require an ESM-only package; @nestjs/terminus 12 is one (Node 20 itself
// loads it through require(esm), so dist/main.js needs nothing). This turns its modules into CommonJS for
// the tests only: `import.meta` has no CommonJS form, so its uses are replaced first.
const { createHash } = require('node:crypto');
const { readFileSync } = require('node:fs');
const ts = require('typescript');

const OWN_SOURCE = readFileSync(__filename, 'utf8');

module.exports = {
  // Jest caches transformed files: the key changes with this transformer, not only with the package.
  getCacheKey(source, filename) {
    return createHash('sha256').update(OWN_SOURCE).update(filename).update(source).digest('hex');
  },
  process(source, filename) {
    const commonJsSource = source
      // CommonJS has its own `require`; an ESM module makes one from its URL.
      .replace(/^const require = createRequire\(import\.meta\.url\);$/m, '')
      .replace(/import\.meta\.url/g, "require('node:url').pathToFileURL(__filename).href")
      .replace(/import\.meta\.resolve\(/g, 'require.resolve(')
      .replace(/import\.meta\.dirname/g, '__dirname');
    const { outputText } = ts.transpileModule(commonJsSource, {
      fileName: filename,
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        allowJs: true,
        esModuleInterop: true,
      },
    });
    return { code: outputText };
  },
};
