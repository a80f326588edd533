import { Body, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query, Req } from '@nestjs/common';
import {
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiExtension,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { RequireScopes } from 'nest-mcp-host';
import { CustomersStore } from '../customers.store';
import { clearedForPersonalData } from '../personal-data';
import { DeskScopes } from '../desk.scopes';
import { CreateTicketDto } from '../dto/create-ticket.dto';
import { TicketIdDto } from '../dto/ticket-id.dto';
import type { Ticket } from '../support.types';
import { summarizeTicket, TicketsStore } from '../tickets.store';
import { TicketChanges } from '../ticket.resources';
import { DeskApiController } from './desk-api.decorator';
import { principalOf, type DeskApiRequest } from './desk-api.guard';
import { CloseTicketBody } from './dto/close-ticket.body';
import { ListTicketsQuery } from './dto/list-tickets.query';
import { UpdateTicketBody } from './dto/update-ticket.body';
import { DeletedTicketResponse } from './responses/deleted-ticket.response';
import { DeskErrorResponse } from './responses/desk-error.response';
import { TicketListResponse } from './responses/ticket-list.response';
import { TicketResponse } from './responses/ticket.response';

const TICKET_ID = ApiParam({ name: 'ticketId', description: 'The ticket id, e.g. T-2001.', example: 'T-2001' });
const NOT_FOUND = ApiNotFoundResponse({ description: 'No ticket (`TicketNotFound`).', type: DeskErrorResponse });
const CLOSED = ApiConflictResponse({ description: 'The ticket is closed (`TicketClosed`).', type: DeskErrorResponse });
/**
 * Marks an operation destructive in the OpenAPI document (`x-mcp-annotations`), as the desk's
 * `close_ticket` tool is: the REST bridge then has a person confirm each MCP call of it, exactly
 * as the tool's calls are confirmed (rest.confirm 'destructive' in AppModule).
 */
const DESTRUCTIVE = ApiExtension('x-mcp-annotations', { destructiveHint: true });

/** Tickets over REST: the same store and rules as the desk's ticket tools. */
@DeskApiController('tickets')
@RequireScopes(DeskScopes.ticketsRead)
export class TicketsController {
  constructor(
    private readonly tickets: TicketsStore,
    private readonly customers: CustomersStore,
    private readonly changes: TicketChanges,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listTickets',
    summary: 'List or search tickets',
    description:
      'Lists tickets filtered by status, priority, customer, assignee, assignment or words in the subject/description (newest ids last).',
  })
  @ApiOkResponse({ type: TicketListResponse })
  async list(
    @Query() { limit, ...filter }: ListTicketsQuery,
    @Req() { user }: DeskApiRequest,
  ): Promise<TicketListResponse> {
    // Addresses in descriptions are matched only for a caller who may read them (no oracle for the others).
    const emails = clearedForPersonalData(principalOf(user));
    const found = await this.tickets.search({ ...filter, emails, limit: limit ?? 20 });
    return { tickets: found.map(summarizeTicket), count: found.length };
  }

  @Get(':ticketId')
  @ApiOperation({
    operationId: 'getTicket',
    summary: 'Get a ticket',
    description: 'Returns one ticket with its description, resolution and comments.',
  })
  @TICKET_ID
  @ApiOkResponse({ type: TicketResponse })
  @NOT_FOUND
  get(@Param() { ticketId }: TicketIdDto): Promise<Ticket> {
    return this.tickets.get(ticketId);
  }

  @Post()
  @RequireScopes(DeskScopes.ticketsWrite)
  @ApiOperation({
    operationId: 'createTicket',
    summary: 'Open a ticket',
    description: 'Opens a new ticket for a customer. Search first to avoid duplicates.',
  })
  @ApiCreatedResponse({ type: TicketResponse })
  @ApiNotFoundResponse({ description: 'No such customer (`CustomerNotFound`).', type: DeskErrorResponse })
  async create(@Body() input: CreateTicketDto): Promise<Ticket> {
    await this.customers.get(input.customerId);
    return this.tickets.create(input);
  }

  @Patch(':ticketId')
  @RequireScopes(DeskScopes.ticketsWrite)
  @ApiOperation({
    operationId: 'updateTicket',
    summary: 'Update or assign a ticket',
    description:
      'Changes the fields given: subject, description, priority, status (open or pending) or assignee (null unassigns). A closed ticket cannot change.',
  })
  @TICKET_ID
  @ApiOkResponse({ type: TicketResponse })
  @NOT_FOUND
  @CLOSED
  async update(@Param() { ticketId }: TicketIdDto, @Body() changes: UpdateTicketBody): Promise<Ticket> {
    const ticket = await this.tickets.update(ticketId, changes);
    this.changes.changed(ticketId);
    return ticket;
  }

  @Post(':ticketId/close')
  @HttpCode(HttpStatus.OK)
  @RequireScopes(DeskScopes.ticketsWrite)
  @ApiOperation({
    operationId: 'closeTicket',
    summary: 'Close a ticket',
    description: 'Closes a ticket with a resolution written for the customer. A closed ticket cannot be closed again.',
  })
  @TICKET_ID
  @DESTRUCTIVE
  @ApiOkResponse({ type: TicketResponse })
  @NOT_FOUND
  @CLOSED
  async close(@Param() { ticketId }: TicketIdDto, @Body() { resolution }: CloseTicketBody): Promise<Ticket> {
    const ticket = await this.tickets.closeOpen(ticketId, resolution);
    this.changes.changed(ticketId);
    return ticket;
  }

  @Delete(':ticketId')
  @RequireScopes(DeskScopes.ticketsWrite)
  @ApiOperation({
    operationId: 'deleteTicket',
    summary: 'Delete a ticket',
    description:
      'Deletes a ticket and its comments for good. This cannot be undone: close a ticket instead to keep it.',
  })
  @TICKET_ID
  @DESTRUCTIVE
  @ApiOkResponse({ type: DeletedTicketResponse })
  @NOT_FOUND
  async remove(@Param() { ticketId }: TicketIdDto): Promise<DeletedTicketResponse> {
    const { id } = await this.tickets.remove(ticketId);
    this.changes.changed(id);
    return { id, deleted: true };
  }
}
