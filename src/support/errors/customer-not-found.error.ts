import { SupportDeskError } from './support-desk.error';

/** No customer has this id. */
export class CustomerNotFoundError extends SupportDeskError {
  readonly code = 'CustomerNotFound';
  readonly details: { customerId: string };

  constructor(readonly customerId: string) {
    super(`No customer ${customerId}.`);
    this.details = { customerId };
  }
}
