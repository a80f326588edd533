import type { McpOAuthConsent } from './consent/consent-registry';
import type { Entitlement } from './grants/grant-policy';
import type { TokenResponse } from './grants/token-service';

/**
 * The browser a request came from: the value of its binding cookie (set by the facade at the
 * first step of a sign-in), how it got here (`Sec-Fetch-Site`) and, for a form, its `Origin`.
 */
export interface FacadeBrowser {
  id: string;
  fetchSite: string | null;
  origin: string | null;
}

/** What the consent page shows, and what its form sends back. */
export interface ConsentPrompt {
  kind: 'consent';
  action: string;
  request: string;
  csrf: string;
  person: { id: string; name?: string; email?: string };
  client: {
    id: string;
    name: string | null;
    source: string;
    redirectUri: string;
    redirectHost: string;
    /** The code goes to a loopback host: any local program listening there could be the client. */
    loopback: boolean;
  };
  /** What the client's tokens will carry. */
  scopes: string[];
  roles: string[];
}

/** The person's own page: the clients they approved, each with a revoke form. */
export interface ConsentsPage {
  kind: 'consents';
  action: string;
  csrf: string;
  person: { id: string; name?: string; email?: string };
  consents: McpOAuthConsent[];
}

/**
 * Where a browser goes next: a redirect, a page that says what went wrong (never a redirect to an
 * unchecked URI), or a page of the facade's; with the person and client it concerns, and what
 * the audit trail should say besides.
 */
export type BrowserAnswer = (
  { redirect: string } | { status: number; error: string; description: string } | { page: ConsentPrompt | ConsentsPage }
) & { subject?: string; clientId?: string; details?: Record<string, unknown> };

/** A grant at the token endpoint: the tokens, the person, and what they were narrowed from. */
export interface TokenOutcome {
  tokens: TokenResponse;
  subject: string;
  entitlement?: Entitlement;
}
