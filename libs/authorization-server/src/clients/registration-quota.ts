import { OAuthError } from '../errors/oauth-error';
import type { DynamicRegistrationLimits } from '../options/client-options';
import { AddressRate } from '../state/address-rate';
import type { AuthorizationServerStore } from '../state/authorization-server.store';

/** The store's key prefix of registered clients (counted against `maxClients`). */
export const CLIENT_PREFIX = 'client:';

/**
 * The bounds of RFC 7591 registration, kept in the authorization server's store so that every
 * replica counts together: registrations per client address in fixed windows, and registered
 * clients in all. Each refusal is an `OAuthError` the endpoint answers and audits.
 */
export class RegistrationQuota {
  private readonly rate: AddressRate | undefined;

  constructor(
    private readonly limits: Exclude<DynamicRegistrationLimits, false>,
    private readonly store: AuthorizationServerStore,
  ) {
    const perAddress = limits.perAddress;
    this.rate = perAddress
      ? new AddressRate(
          store,
          'regrate:',
          perAddress,
          (retryAfterSec) =>
            `this address registered ${perAddress.limit} clients in the last ${perAddress.windowSec} s (dynamicRegistration.perAddress): ` +
            `try again in ${retryAfterSec} s, or reuse the registration the client already has`,
        )
      : undefined;
  }

  /**
   * Counts a registration from `address` in its window.
   * @throws OAuthError `too_many_requests` (429, with `Retry-After`) past `perAddress.limit`
   */
  async admit(address: string | undefined, now = Date.now()): Promise<void> {
    await this.rate?.admit(address, now);
  }

  /**
   * Whether another client may be kept.
   * @throws OAuthError `temporarily_unavailable` (503) when `maxClients` are registered
   */
  async ensureRoom(): Promise<void> {
    const kept = await this.store.count(CLIENT_PREFIX);
    if (kept < this.limits.maxClients) return;
    throw new OAuthError(
      'temporarily_unavailable',
      `this authorization server keeps at most ${this.limits.maxClients} registered clients (dynamicRegistration.maxClients) ` +
        `and has them: unused ones are forgotten after ${this.limits.unusedTtlSec} s; try later, ask its administrator, ` +
        'or use a client ID metadata document',
      503,
    );
  }
}
