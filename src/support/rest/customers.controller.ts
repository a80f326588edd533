import { Get, Param, Query, Req } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { RequireScopes } from 'nest-mcp-host';
import { CustomersStore, summarizeCustomer } from '../customers.store';
import { clearedForPersonalData } from '../personal-data';
import { DeskScopes } from '../desk.scopes';
import { CustomerIdDto } from '../dto/customer-id.dto';
import { TicketsStore } from '../tickets.store';
import { DeskApiController } from './desk-api.decorator';
import { principalOf, type DeskApiRequest } from './desk-api.guard';
import { ListCustomersQuery } from './dto/list-customers.query';
import { CustomerListResponse } from './responses/customer-list.response';
import { CustomerResponse } from './responses/customer.response';
import { DeskErrorResponse } from './responses/desk-error.response';

/** Customers over REST: the same store as the desk's customer tools. */
@DeskApiController('customers')
@RequireScopes(DeskScopes.ticketsRead)
export class CustomersController {
  constructor(
    private readonly customers: CustomersStore,
    private readonly tickets: TicketsStore,
  ) {}

  @Get()
  @ApiOperation({
    operationId: 'listCustomers',
    summary: 'List or search customers',
    description:
      'Finds customers by name or company (and email, for callers cleared for personal data), optionally by tier. Returns id, name, company and tier.',
  })
  @ApiOkResponse({ type: CustomerListResponse })
  async list(
    @Query() { query, tier, limit }: ListCustomersQuery,
    @Req() { user }: DeskApiRequest,
  ): Promise<CustomerListResponse> {
    // The e-mail address is matched only for a caller who may read it (no oracle for the others).
    const emails = clearedForPersonalData(principalOf(user));
    const found = await this.customers.search({ query, tier, emails, limit: limit ?? 10 });
    return { customers: found.map(summarizeCustomer), count: found.length };
  }

  @Get(':customerId')
  @ApiOperation({
    operationId: 'getCustomer',
    summary: 'Get a customer',
    description: 'Returns one customer with contact details and the number of open tickets.',
  })
  @ApiParam({ name: 'customerId', description: 'The customer id, e.g. C-1001.', example: 'C-1001' })
  @ApiOkResponse({ type: CustomerResponse })
  @ApiNotFoundResponse({ description: 'No customer (`CustomerNotFound`).', type: DeskErrorResponse })
  async get(@Param() { customerId }: CustomerIdDto): Promise<CustomerResponse> {
    return { ...(await this.customers.get(customerId)), openTickets: await this.tickets.openCount(customerId) };
  }
}
