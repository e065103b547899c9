'use strict';
/*
 * Loads the repository's TypeScript sources in a bench script (the stand-ins of the
 * providers live in the suppliers library's testing folder): `.ts` files are transpiled on load (no type check)
 * and the `@gensvc/<lib>` aliases resolve to `libs/<lib>/src`, as jest.base.js does.
 */
const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');

function register() {
  const ts = require('typescript');
  require('reflect-metadata');
  require.extensions['.ts'] = (m, filename) => {
    const out = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
      fileName: filename,
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true, experimentalDecorators: true, emitDecoratorMetadata: true },
    });
    m._compile(out.outputText, filename);
  };
  const libs = path.join(__dirname, '..', '..', 'libs');
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const alias = /^@gensvc\/([^/]+)(?:\/(.+))?$/.exec(request);
    return resolveFilename.call(this, alias ? path.join(libs, alias[1], 'src', alias[2] ?? '') : request, ...rest);
  };
}

module.exports = { register };
