import { Catch, HttpStatus, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { CustomerNotFoundError } from '../errors/customer-not-found.error';
import { SupportDeskError } from '../errors/support-desk.error';
import { TicketClosedError } from '../errors/ticket-closed.error';
import { TicketNotFoundError } from '../errors/ticket-not-found.error';

/** The HTTP status of each rule of the desk; a rule not listed here is a 422. */
const STATUS_OF = new Map<unknown, HttpStatus>([
  [TicketNotFoundError, HttpStatus.NOT_FOUND],
  [CustomerNotFoundError, HttpStatus.NOT_FOUND],
  [TicketClosedError, HttpStatus.CONFLICT],
]);

/**
 * Answers the desk's domain errors in the shape of Nest's own exceptions, with a stable `error`
 * name and the ids involved: `{ statusCode: 404, error: 'TicketNotFound', message, ticketId }`.
 */
@Catch(SupportDeskError)
export class DeskErrorsFilter implements ExceptionFilter<SupportDeskError> {
  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(error: SupportDeskError, host: ArgumentsHost): void {
    const statusCode = STATUS_OF.get(error.constructor) ?? HttpStatus.UNPROCESSABLE_ENTITY;
    const body = { statusCode, error: error.code, message: error.message, ...error.details };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, statusCode);
  }
}
