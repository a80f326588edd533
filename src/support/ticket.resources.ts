import { Injectable } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { McpArgs, McpResourceNotifier, McpResourceTemplate, RequireScopes, resourceNotFound } from 'nest-mcp-host';
import { DeskScopes } from './desk.scopes';
import { TicketsStore } from './tickets.store';

/** The URI of a ticket as a resource. */
export const ticketUri = (ticketId: string) => `desk://tickets/${ticketId}`;

/**
 * Each ticket as a resource a client can read and subscribe to: whoever changes the ticket (a
 * tool, the REST API, through any replica) tells the subscribers with `TicketChanges`.
 */
@Injectable()
@RequireScopes(DeskScopes.ticketsRead)
export class TicketResources {
  constructor(private readonly tickets: TicketsStore) {}

  @McpResourceTemplate({
    uriTemplate: 'desk://tickets/{ticketId}',
    name: 'ticket',
    title: 'Ticket',
    description: 'One ticket with its comments and resolution, as JSON. Subscribe to hear when it changes.',
    mimeType: 'application/json',
  })
  async ticket(@McpArgs('ticketId') ticketId: string) {
    const ticket = await this.tickets.find(ticketId);
    if (!ticket) throw resourceNotFound(ticketUri(ticketId));
    return JSON.stringify(ticket, null, 2);
  }
}

/** Tells the clients subscribed to a ticket that it changed. */
@Injectable()
export class TicketChanges {
  private notifier: McpResourceNotifier | undefined;

  /** @param modules where the host's notifier is found (the McpModule the application imports beside this module) */
  constructor(private readonly modules: ModuleRef) {}

  changed(ticketId: string): void {
    const notifier = this.notifier ?? this.modules.get(McpResourceNotifier, { strict: false });
    if (!notifier) throw new Error('TicketChanges needs the McpModule imported by the application');
    this.notifier = notifier;
    notifier.resourceUpdated(ticketUri(ticketId));
  }
}
