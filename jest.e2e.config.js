/** End-to-end level: the whole app over HTTP with supertest. */

// End-to-end tests run on the embedded stores (a fresh DATA_DIR per app). The server
// variables that .ci/run exports for the integration suites must not reach the apps or the
// CLI processes these tests start (workers inherit this environment).
for (const v of ['EVENTSTORE_URL', 'MONGO_URL', 'MONGO_DB', 'S3_ENDPOINT', 'S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET', 'S3_REGION']) {
  delete process.env[v];
}

module.exports = {
  ...require('./jest.base'),
  displayName: 'e2e',
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  testTimeout: 60000,
  maxWorkers: 2,
};
