// Two projects: unit specs beside the code, e2e specs under test/.
// @nestjs/* 12 is ESM-only; on Node 20 jest needs those files transpiled to CommonJS (see docs/toolchain).
const shared = {
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: { warnOnly: false } }],
    '^.+\\.m?js$': ['@swc/jest', { jsc: { target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // cookie 2 (ESM-only) comes with light-my-request, which Fastify's inject() loads.
  transformIgnorePatterns: [
    '(?<!/light-my-request)/node_modules/(?!(@nestjs|jose|openid-client|oauth4webapi|file-type|strtok3|token-types|@tokenizer|uint8array-extras)/|light-my-request/node_modules/cookie/)',
  ],
  // The package's internal imports and its public entries, from the sources (as tsconfig.json's paths).
  moduleNameMapper: {
    '^#libs/(.*)$': '<rootDir>/libs/$1/src/index.ts',
    '^nest-mcp-host$': '<rootDir>/libs/index.ts',
    '^nest-mcp-host/(postgres|redis|cli)$': '<rootDir>/libs/$1.ts',
  },
  rootDir: __dirname,
};

module.exports = {
  // An e2e spec starts real servers and clients; on a busy 2-core machine a start can take longer
  // than jest's 5 s default. Timing goals live in the benchmarks, not in timeouts here.
  testTimeout: 30_000,
  projects: [
    {
      ...shared,
      displayName: 'unit',
      cacheDirectory: '<rootDir>/.jest-cache/unit',
      testMatch: ['<rootDir>/{src,libs,apps}/**/*.spec.ts'],
    },
    {
      ...shared,
      displayName: 'e2e',
      cacheDirectory: '<rootDir>/.jest-cache/e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
    },
  ],
};
