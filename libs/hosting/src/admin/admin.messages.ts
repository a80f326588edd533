/** What the admin API (and the metrics endpoint, `surface`) says when it refuses a request. */
export const AdminMessages = {
  unauthenticated: (why: string, surface = 'admin API') => `${why}. The ${surface} needs an admin key or token.`,
  notAdmin: (principal: string, role: string, scope: string, surface = 'admin API') =>
    `"${principal}" is not an administrator: the ${surface} needs the role "${role}" or the scope "${scope}".`,
  loopbackOnly: (surface = 'admin API') => `Authentication is off on this host, so its ${surface} answers loopback clients only.`,
  tooManyFailures: (seconds: number) => `Too many failed authentications from this address; retry in ${seconds} s.`,
  notFound: (name: string, known: readonly string[]) => `No admin API "${name}"; there are: ${known.join(', ')}.`,
  badOutcome: (outcome: string, known: readonly string[]) => `outcome "${outcome}" is not an outcome; use one of: ${known.join(', ')}.`,
  badLimit: (value: string, max: number) => `limit "${value}" must be an integer from 1 to ${max}.`,
} as const;
