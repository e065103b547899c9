/** End-to-end level: the whole app over HTTP with supertest. */
module.exports = {
  ...require('./jest.base'),
  displayName: 'e2e',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
