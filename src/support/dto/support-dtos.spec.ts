import type { Type } from '@nestjs/common';
import { JsonSchemaFactory } from 'nest-mcp-host';
import { AddCommentDto } from './add-comment.dto';
import { CloseTicketDto } from './close-ticket.dto';
import { CreateTicketDto } from './create-ticket.dto';
import { CustomerIdDto } from './customer-id.dto';
import { ExportReportDto } from './export-report.dto';
import { SearchCustomersDto } from './search-customers.dto';
import { SearchTicketsDto } from './search-tickets.dto';
import { TicketIdDto } from './ticket-id.dto';

// The input schemas the host publishes are generated from these DTOs: what a model sees.
describe('support desk input schemas', () => {
  const schemas = new JsonSchemaFactory();
  const schemaOf = (dto: Type<object>) =>
    schemas.create(dto) as { properties: Record<string, Record<string, unknown>>; required?: string[] };
  const dtos: Type<object>[] = [
    AddCommentDto,
    CloseTicketDto,
    CreateTicketDto,
    CustomerIdDto,
    ExportReportDto,
    SearchCustomersDto,
    SearchTicketsDto,
    TicketIdDto,
  ];

  it.each(dtos.map((dto) => [dto.name, dto]))('%s describes every field for the model', (_name, dto) => {
    const { properties } = schemaOf(dto);
    expect(Object.keys(properties).length).toBeGreaterThan(0);
    for (const [field, property] of Object.entries(properties)) {
      expect({ field, description: property.description }).toEqual({
        field,
        description: expect.stringMatching(/\w{3,}/),
      });
    }
  });

  it('publishes the constraints the validator enforces', () => {
    expect(schemaOf(SearchTicketsDto)).toMatchObject({
      properties: {
        status: { type: 'string', enum: ['open', 'pending', 'closed'] },
        customerId: { type: 'string', pattern: '^C-\\d{4}$' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
      },
    });
    expect(schemaOf(SearchTicketsDto).required).toBeUndefined();
    expect(schemaOf(CreateTicketDto)).toMatchObject({
      properties: {
        subject: { minLength: 5, maxLength: 120 },
        priority: { enum: ['low', 'normal', 'high', 'urgent'] },
      },
      required: ['customerId', 'subject', 'description', 'priority'],
    });
  });
});
