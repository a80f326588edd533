import { Get, Param, Query } from '@nestjs/common';
import { ApiNotFoundResponse, ApiOkResponse, ApiOperation, ApiParam } from '@nestjs/swagger';
import { RequireScopes } from 'nest-mcp-host';
import { CustomersStore, summarizeCustomer } from '../customers.store';
import { DeskScopes } from '../desk.scopes';
import { CustomerIdDto } from '../dto/customer-id.dto';
import { TicketsStore } from '../tickets.store';
import { DeskApiController } from './desk-api.decorator';
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
    description: 'Finds customers by name, email or company, optionally by tier. Returns id, name, company and tier.',
  })
  @ApiOkResponse({ type: CustomerListResponse })
  async list(@Query() { query, tier, limit }: ListCustomersQuery): Promise<CustomerListResponse> {
    const found = await this.customers.search({ query, tier, limit: limit ?? 10 });
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
