import { Injectable, UseInterceptors } from '@nestjs/common';
import { McpArgs, McpContext, McpTool, McpToolError, RequireScopes, type McpCallContext } from 'nest-mcp-host';
import { CallTimingInterceptor } from './call-timing.interceptor';
import { DeskScopes } from './desk.scopes';
import { CustomersStore, summarizeCustomer } from './customers.store';
import { clearedForPersonalData } from './personal-data';
import { CustomerIdDto } from './dto/customer-id.dto';
import { SearchCustomersDto } from './dto/search-customers.dto';
import { CustomerOutput } from './support.schemas';
import { TicketsStore } from './tickets.store';

@Injectable()
@UseInterceptors(CallTimingInterceptor)
@RequireScopes(DeskScopes.ticketsRead)
export class CustomerTools {
  constructor(
    private readonly customers: CustomersStore,
    private readonly tickets: TicketsStore,
  ) {}

  @McpTool({
    name: 'search_customers',
    title: 'Search customers',
    description:
      'Finds customers by name or company (and email, for callers cleared for personal data), optionally by tier. Returns id, name, company and tier.',
    annotations: { readOnlyHint: true, openWorldHint: false },
  })
  async search(@McpArgs() { query, tier, limit }: SearchCustomersDto, @McpContext() ctx: McpCallContext) {
    // The e-mail address is matched only for a caller who may read it (no oracle for the others).
    const emails = clearedForPersonalData(ctx.caller);
    const found = await this.customers.search({ query, tier, emails, limit: limit ?? 10 });
    return { customers: found.map(summarizeCustomer), count: found.length };
  }

  @McpTool({
    name: 'get_customer',
    title: 'Get a customer',
    description: 'Returns one customer with contact details and the number of open tickets.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    output: CustomerOutput,
  })
  async get(@McpArgs() { customerId }: CustomerIdDto) {
    const customer = await this.customers.find(customerId);
    if (!customer) throw new McpToolError(`No customer ${customerId}. Use search_customers to find the right id.`);
    return { ...customer, openTickets: await this.tickets.openCount(customerId) };
  }
}
