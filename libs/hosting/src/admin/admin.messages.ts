/** What the admin API says when it refuses a request. */
export const AdminMessages = {
  unauthenticated: (why: string) => `${why}. The admin API needs an admin key or token.`,
  notAdmin: (principal: string, role: string, scope: string) =>
    `"${principal}" is not an administrator: the admin API needs the role "${role}" or the scope "${scope}".`,
  loopbackOnly: () => 'Authentication is off on this host, so its admin API answers loopback clients only.',
  tooManyFailures: (seconds: number) => `Too many failed authentications from this address; retry in ${seconds} s.`,
  notFound: (name: string, known: readonly string[]) => `No admin API "${name}"; there are: ${known.join(', ')}.`,
  badOutcome: (outcome: string, known: readonly string[]) => `outcome "${outcome}" is not an outcome; use one of: ${known.join(', ')}.`,
  badLimit: (value: string, max: number) => `limit "${value}" must be an integer from 1 to ${max}.`,
} as const;
