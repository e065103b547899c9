/** Integration level: adapters against real servers (contract suites per port), architecture rules. */
module.exports = {
  ...require('./jest.base'),
  displayName: 'int',
  testMatch: ['<rootDir>/{apps,libs}/**/*.int.spec.ts'],
  testTimeout: 60000,
};
