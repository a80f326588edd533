import { optionalDependency } from '#libs/core';

/** jose, loaded by hosts that run an authorization server only (ESM-only: Node >= 20.19 requires it as ESM). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const jose = optionalDependency('jose', 'authorizationServer', (): typeof import('jose') => require('jose'));
