/**
 * Shared Jest settings. TypeScript goes through ts-jest (transpile only; `npm run typecheck`
 * checks types). NestJS 12 and a few other dependencies ship only ES modules, which Jest
 * cannot require on Node 20: babel-jest turns those into CommonJS (cached after the first run).
 */
const contexts = ['kernel', 'event-sourcing', 'blob-store', 'config', 'logging', 'http', 'storage', 'catalogue', 'identity', 'quoting', 'tasks', 'wallet', 'assets', 'voices', 'suppliers', 'operations', 'notifications'];
const moduleNameMapper = {};
for (const c of contexts) {
  moduleNameMapper[`^@gensvc/${c}$`] = `<rootDir>/libs/${c}/src`;
  moduleNameMapper[`^@gensvc/${c}/(.*)$`] = `<rootDir>/libs/${c}/src/$1`;
}
// The SDK (packages/sdk) is an ES module package whose sources import siblings as `./x.js`.
moduleNameMapper['^@gensvc/sdk$'] = '<rootDir>/packages/sdk/src/index.ts';
moduleNameMapper['^@gensvc/sdk/(.*)$'] = '<rootDir>/packages/sdk/src/$1.ts';
moduleNameMapper['^(\\.{1,2}/.*)\\.js$'] = '$1';
const esmPackages = [
  '@nestjs', '@borewit', '@tokenizer', 'file-type', 'strtok3', 'token-types', 'uint8array-extras',
  'oauth4webapi', 'fast-check', 'pure-rand', '@standard-schema', '@modelcontextprotocol', 'pkce-challenge', '@seriousme',
];
module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
    '^.+\\.m?js$': [
      'babel-jest',
      { babelrc: false, configFile: false, plugins: [['babel-plugin-transform-import-meta', { module: 'ES6' }], '@babel/plugin-transform-dynamic-import', '@babel/plugin-transform-modules-commonjs'] },
    ],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};
