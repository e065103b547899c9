/** Unit level: deciders, sagas, money, pure functions. No Nest, no I/O. */
module.exports = { ...require('./jest.base'), displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,packages}/**/*.unit.spec.ts'] };
