/**
 * Integration level: adapters against real servers (contract suites per port) and whatever else
 * does I/O (SQLite, files, HTTP on loopback: the webhook sender, the SDK's client), architecture rules.
 */
module.exports = {
  ...require('./jest.base'),
  displayName: 'int',
  testMatch: ['<rootDir>/{apps,libs,packages}/**/*.int.spec.ts'],
  testTimeout: 60000,
};
