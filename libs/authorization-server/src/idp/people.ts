import { hash } from 'node:crypto';
import type { AuthorizationServerOptions } from '../options/authorization-server.options';

/** A person as the facade knows them: the issuer that vouched for them, its `sub`, and the host's id for them. */
export interface Person {
  issuer: string;
  sub: string;
  /** The principal id of the host's tokens (their `sub`): the IdP's `sub`, or `<issuer>#<sub>` for another issuer's people. */
  id: string;
}

/**
 * People keyed by issuer and subject. The company IdP's people (and those of a trusted IdP that
 * shares its directory, `sameDirectory`) keep their `sub` as the host's id; another issuer's are
 * `<issuer>#<sub>`, so an ID-JAG of a partner IdP whose `sub` is `alice` never lands on the
 * company's `alice` (her approvals, connected accounts, sign-ins and audit trail).
 */
export class People {
  private readonly ownSubjects: ReadonlySet<string>;

  constructor(options: Pick<AuthorizationServerOptions, 'idp' | 'trustedIdps'>) {
    this.ownSubjects = new Set([
      options.idp.issuer,
      ...options.trustedIdps.filter((trusted) => trusted.sameDirectory).map((trusted) => trusted.issuer),
    ]);
  }

  of(issuer: string, sub: string): Person {
    return { issuer, sub, id: this.ownSubjects.has(issuer) ? sub : `${issuer}#${sub}` };
  }
}

/** A store key for a person: their issuer and subject, hashed (neither is ever a key's text). */
export function personKey(person: Pick<Person, 'issuer' | 'sub'>): string {
  return hash('sha256', `${person.issuer}\n${person.sub}`, 'base64url');
}
