import { ClaimsMapper, type McpClaimsMapping } from '#libs/security';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';

/** What a grant carries, and what it was narrowed from. */
export interface Entitlement {
  scopes: string[];
  roles: string[];
  /** The scopes asked (the client's `scope`, an ID-JAG's `scope`), or `null` when nothing was asked. */
  asked: string[] | null;
  /**
   * What was asked and is not granted (outside the mapping or `scopesSupported`), and what the
   * mapping gave that is privileged without a map (roles as `role:<name>`).
   */
  withheld: string[];
}

/**
 * The one rule every grant follows (authorization code, refresh, JWT bearer, the in-process
 * exchange): the person's claims, mapped by `auth.claims`, decide; what a client or an ID-JAG
 * asks for can only narrow that (intersection), never add to it; a scope outside
 * `scopesSupported` is never granted; and a privileged scope or role (an administrator's, an
 * approver's) comes only from a rule with a `map` that names it, never from a claim's value
 * passed through as it is.
 */
export class GrantPolicy {
  private readonly mapper: ClaimsMapper;
  private readonly scopesMapped: boolean;
  private readonly rolesMapped: boolean;
  private readonly supported: ReadonlySet<string> | undefined;

  constructor(
    private readonly options: Pick<AuthorizationServerOptions, 'privileged' | 'scopesSupported'>,
    claims: McpClaimsMapping | undefined,
    rolesClaim: string | undefined,
  ) {
    this.mapper = new ClaimsMapper(claims, rolesClaim);
    this.scopesMapped = claims?.scopes?.map !== undefined;
    this.rolesMapped = claims?.roles?.map !== undefined;
    this.supported = options.scopesSupported && new Set(options.scopesSupported);
  }

  /**
   * @param claims the IdP's claims of the person (an ID token, userinfo, an ID-JAG)
   * @param asks each list of scopes asked (`null`: that party asked nothing); each narrows
   */
  decide(claims: Readonly<Record<string, unknown>>, ...asks: (readonly string[] | null)[]): Entitlement {
    const { privileged } = this.options;
    const mapped = this.mapper.scopesOf(claims);
    const roles = this.mapper.rolesOf(claims);
    const given = asks.filter((ask): ask is readonly string[] => ask !== null);
    const asked = given.length === 0 ? null : [...new Set(given.flat())];
    const allowed = (scope: string) =>
      (this.supported === undefined || this.supported.has(scope)) &&
      (this.scopesMapped || !privileged.scopes.has(scope)) &&
      given.every((ask) => ask.includes(scope));
    const scopes = mapped.filter(allowed);
    const grantedRoles = this.rolesMapped ? roles : roles.filter((role) => !privileged.roles.has(role));
    // What was asked and not granted, and what the mapping gave that the rule took away.
    const unasked = (scope: string) => !given.every((ask) => ask.includes(scope));
    const withheld = [
      ...new Set([...(asked ?? []), ...mapped.filter((scope) => !unasked(scope))].filter((s) => !scopes.includes(s))),
      ...roles.filter((role) => !grantedRoles.includes(role)).map((role) => `role:${role}`),
    ];
    return { scopes, roles: grantedRoles, asked, withheld };
  }
}
