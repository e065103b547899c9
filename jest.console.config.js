/**
 * Component level: the web console's components and pure helpers in jsdom (Preact, Testing
 * Library). The browser end-to-end test of the console runs in the e2e level with Chromium.
 */
module.exports = {
  rootDir: __dirname,
  displayName: 'console',
  testEnvironment: 'jsdom',
  testMatch: ['<rootDir>/apps/console/src/**/*.spec.tsx', '<rootDir>/apps/console/src/**/*.spec.ts'],
  moduleFileExtensions: ['tsx', 'ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: '<rootDir>/apps/console/tsconfig.jest.json', diagnostics: false }],
    // Preact 11 and preact-iso (the pages' router) ship only ES modules: turned into CommonJS for Jest.
    '^.+\\.m?js$': ['babel-jest', { babelrc: false, configFile: false, plugins: ['@babel/plugin-transform-modules-commonjs'] }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(preact|preact-iso|@testing-library/preact)/)'],
  testEnvironmentOptions: { customExportConditions: ['require', 'default'] },
  moduleNameMapper: {
    '\\.css$': '<rootDir>/apps/console/src/testing/empty.js',
    // The SDK from its sources, whose imports name siblings as `./x.js`.
    '^@gensvc/sdk$': '<rootDir>/packages/sdk/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
};
