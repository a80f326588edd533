import { optionalDependency } from '#libs/core';

/**
 * `@bufbuild/cel`, required the first time a policy or a guardrail's `unless` is compiled: a host
 * without the `governance` option never loads it (hosting's optional-dependencies spec checks it).
 */
export const celEngine = optionalDependency(
  '@bufbuild/cel',
  'the governance option',
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (): typeof import('@bufbuild/cel') => require('@bufbuild/cel'),
);
