import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..', '..', '..');

/**
 * The head of a script that a test runs in a child process (`node script.js`) to load the
 * repository's TypeScript sources there: it transpiles `.ts` files on load (no type check) and
 * resolves the `@gensvc/<lib>` aliases to `libs/<lib>/src` as jest.base.js does.
 */
export function typescriptChildPreamble(): string {
  return `
const ts = require(${JSON.stringify(require.resolve('typescript'))});
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
require(${JSON.stringify(require.resolve('reflect-metadata'))});
require.extensions['.ts'] = (m, filename) => {
  const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), { fileName: filename, compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, emitDecoratorMetadata: true } });
  m._compile(out.outputText, filename);
};
const libs = ${JSON.stringify(join(root, 'libs'))};
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const alias = /^@gensvc\\/([^/]+)(?:\\/(.+))?$/.exec(request);
  return resolveFilename.call(this, alias ? path.join(libs, alias[1], 'src', alias[2] ?? '') : request, ...rest);
};
`;
}
