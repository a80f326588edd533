// Input schemas shaped like the support desk's tools (src/support), generated the way the host
// generates them: class-validator DTOs and zod through the catalog's JsonSchemaFactory.
import 'reflect-metadata';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { z } from 'zod';
import { JsonSchemaFactory } from '#libs/catalog';
import type { JsonSchemaObject } from '#libs/core';

const STATUSES = ['open', 'pending', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];

class SearchTicketsDto {
  @JSONSchema({
    description: 'Only tickets in this status: open (being worked), pending (waiting on the customer) or closed.',
  })
  @IsOptional()
  @IsIn(STATUSES)
  status?: string;

  @JSONSchema({ description: 'Only tickets of this priority.' })
  @IsOptional()
  @IsIn(PRIORITIES)
  priority?: string;

  @JSONSchema({ description: 'Only tickets of this customer, e.g. C-1001 (find ids with search_customers).' })
  @IsOptional()
  @Matches(/^C-\d{4}$/)
  customerId?: string;

  @JSONSchema({ description: 'Only tickets assigned to this agent login, e.g. maria.lopez.' })
  @IsOptional()
  @IsString()
  @MaxLength(60)
  assignee?: string;

  @JSONSchema({ description: 'The most tickets to return.', default: 20 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;
}

class CreateTicketDto {
  @JSONSchema({ description: 'The customer the ticket is for, e.g. C-1001 (find ids with search_customers).' })
  @Matches(/^C-\d{4}$/)
  customerId!: string;

  @JSONSchema({ description: 'A one-line summary of the problem, as the customer would recognise it.' })
  @IsString()
  @MinLength(5)
  subject!: string;

  @JSONSchema({ description: 'What happens, since when, and what the customer already tried.' })
  @IsString()
  @MinLength(10)
  description!: string;

  @JSONSchema({ description: 'urgent: the customer cannot work; high: a key feature is broken; normal: the default.' })
  @IsIn(PRIORITIES)
  priority!: string;
}

class CloseTicketDto {
  @JSONSchema({ description: 'The ticket to close, e.g. T-2001.' })
  @Matches(/^T-\d{4,}$/)
  ticketId!: string;

  @JSONSchema({
    description: 'What fixed the problem, written for the customer; kept on the ticket and used in reports.',
  })
  @IsString()
  @MinLength(5)
  resolution!: string;
}

/** A tool with every kind of value the command line reads (zod, as the desk's output schemas are written). */
const TagTickets = z.object({
  ticketIds: z.array(z.string()).describe('The tickets to tag.'),
  tags: z
    .array(z.enum(['vat', 'refund', 'outage']))
    .optional()
    .describe('Tags to add.'),
  weights: z.array(z.number().int()).optional(),
  notify: z.boolean().optional().describe('Tell the customers.'),
  dryRun: z.boolean().default(false),
  ratio: z.number().optional(),
  assignee: z.string().nullable().optional(),
  limit: z.union([z.number().int(), z.literal('all')]).optional(),
  filter: z.object({ status: z.string() }).optional(),
  attachments: z.array(z.object({ name: z.string() })).optional(),
  note: z.unknown().optional(),
});

const schemas = new JsonSchemaFactory();

export const SEARCH_TICKETS: JsonSchemaObject = schemas.create(SearchTicketsDto);
export const CREATE_TICKET: JsonSchemaObject = schemas.create(CreateTicketDto);
export const CLOSE_TICKET: JsonSchemaObject = schemas.create(CloseTicketDto);
export const TAG_TICKETS: JsonSchemaObject = schemas.create(TagTickets as never);
