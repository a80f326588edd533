/** What the admin API (and the metrics endpoint, `surface`) says when it refuses a request, and the dashboard's start-up errors. */
export const AdminMessages = {
  unauthenticated: (why: string, surface = 'admin API') =>
    surface === 'approvals API'
      ? `${why}. Sign in with your API key or token.`
      : `${why}. The ${surface} needs an admin key or token.`,
  notAdmin: (principal: string, role: string, scope: string, surface = 'admin API') =>
    `"${principal}" is not an administrator: the ${surface} needs the role "${role}" or the scope "${scope}".`,
  loopbackOnly: (surface = 'admin API') =>
    `Authentication is off on this host, so its ${surface} answers loopback clients only.`,
  tooManyFailures: (seconds: number) => `Too many failed authentications from this address; retry in ${seconds} s.`,
  notFound: (name: string, known: readonly string[]) => `No admin API "${name}"; there are: ${known.join(', ')}.`,
  badOutcome: (outcome: string, known: readonly string[]) =>
    `outcome "${outcome}" is not an outcome; use one of: ${known.join(', ')}.`,
  badLimit: (value: string, max: number) => `limit "${value}" must be an integer from 1 to ${max}.`,
  notApprover: (principal: string, { roles, scopes }: { roles: readonly string[]; scopes: readonly string[] }) =>
    `"${principal}" may not decide approval requests: that needs one of the roles ${roles.map((r) => `"${r}"`).join(', ')} or the scopes ${scopes.map((s) => `"${s}"`).join(', ')}.`,
  selfApproval: (principal: string) =>
    `"${principal}" may not decide a request of its own: another approver must (approvals.allowSelfApproval is off).`,
  badStatus: (status: string, known: readonly string[]) =>
    `status "${status}" is not a status; use one of: ${known.join(', ')}.`,
  badSwitch: (kind: string, action: string) =>
    `"${kind}/${action}" is not a catalog switch; POST to .../catalog/{tool,prompt,resource,resourceTemplate}/<name>/{enable,disable}.`,
  noEntry: (kind: string, name: string) => `No ${kind} "${name}" in the catalog.`,
  noReplica: (replica: string) =>
    `No replica "${replica}" published its charts lately: it stopped, or it is not a replica of this host (the answer without ?replica lists them).`,
  noGovernance: () => 'This host has no governance option: there are no policies to read or replace.',
  noPins: () =>
    'This host pins no catalog: declare pin on an upstream (gateway.upstreams[].pin) or an API (rest.apis[].pin).',
  badPinDecision: (decision: string) =>
    `"${decision}" is no decision on a pin; POST to .../pins/approve or .../pins/reject.`,
  pinIdNeeded: () =>
    'Name the quarantined definition: { "id": "upstream:wiki:tool:search", "fingerprint": "sha256:…" }',
  badPolicies: () => 'The policies were not replaced: fix every problem listed and send them again.',
  jsonOnly: (what: string) => `Send ${what} as Content-Type: application/json`,
  badDecision: (decision: string) => `"${decision}" is no decision; POST to .../approve or .../deny.`,
  missingAsset: (path: string, why: string) =>
    `The admin dashboard cannot read ${path} (${why}): a build must copy libs/**/assets next to the compiled code ` +
    '(the package build does, with libs/scripts/copy-assets.mjs); rebuild, or turn the dashboard off with the option admin: false.',
} as const;
