import {
  Body,
  type CanActivate,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  HttpCode,
  HttpException,
  type INestApplication,
  Module,
  NotFoundException,
  Param,
  Post,
  Res,
  UnauthorizedException,
  UseGuards,
  ValidationPipe,
} from '@nestjs/common';
import { HttpAdapterHost, NestFactory } from '@nestjs/core';
import { Type } from 'class-transformer';
import { IsEmail, IsInt, IsNotEmpty, IsString, Max, Min, ValidateNested } from 'class-validator';
import { HandlerRunner } from '#libs/invocation';
import type { RestArgumentTarget, RestRequestParts } from '../openapi/rest-operation';
import { REST_RESULT_META, toToolResult } from './http-outcome';
import { runInProcess } from './in-process-request';
import { httpOutcome, type RestHttpOutcome } from './rest-http-outcome';
import { RestThrottledException } from './rest-throttled.exception';

class ContactDto {
  @IsEmail()
  email!: string;
}

class CreateTicketDto {
  @IsString()
  @IsNotEmpty()
  title!: string;

  @IsInt()
  @Min(1)
  @Max(5)
  priority!: number;

  @ValidateNested()
  @Type(() => ContactDto)
  contact!: ContactDto;
}

class NoOne implements CanActivate {
  canActivate(): boolean {
    throw new ForbiddenException('Only supervisors may export tickets');
  }
}

@Controller('tickets')
class TicketsController {
  @Post()
  create(@Body(new ValidationPipe()) body: CreateTicketDto) {
    return { id: 'T-1', ...body };
  }

  @Get('export')
  @UseGuards(NoOne)
  export() {
    return [];
  }

  @Get('busy')
  busy(@Res({ passthrough: true }) response: { setHeader(name: string, value: string): void }) {
    response.setHeader('retry-after', '7');
    throw new HttpException('Too many exports, slow down', 429);
  }

  @Get('boom')
  boom(): never {
    throw new Error('database password=hunter2 refused');
  }

  @Get('tags')
  tags() {
    return ['billing', 'printer'];
  }

  @Get('greeting')
  greeting() {
    return 'hello';
  }

  @Get(':id')
  one(@Param('id') id: string) {
    if (id !== 'T-1') throw new NotFoundException(`Ticket ${id} not found`);
    return { id, title: 'Printer on fire' };
  }

  @Delete(':id')
  @HttpCode(204)
  remove() {
    return undefined;
  }
}

@Module({ controllers: [TicketsController] })
class TicketsModule {}

const get = (url: string): RestRequestParts => ({ method: 'GET', url, headers: {} });
const plain = { wrapsResult: false, operationLabel: 'GET /tickets/{id}' };

/** The invocation layer's own classification of a thrown error. */
const runner = new HandlerRunner(
  undefined as never,
  undefined as never,
  {} as never,
  undefined as never,
  undefined as never,
);
const classify = (error: unknown) =>
  runner.classify({ where: 'rest tool' } as never, error, { cancellation: { isCancelled: false } } as never);

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('toToolResult', () => {
  let app: INestApplication;
  let adapter: HttpAdapterHost['httpAdapter'];

  beforeAll(async () => {
    app = await NestFactory.create(TicketsModule, { logger: false });
    await app.init();
    adapter = app.get(HttpAdapterHost).httpAdapter;
  });

  afterAll(async () => {
    await app.close();
  });

  it('gives a JSON object as compact text and as structuredContent', async () => {
    const result = toToolResult(await runInProcess(adapter, get('/tickets/T-1')), plain);
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"id":"T-1","title":"Printer on fire"}' }],
      structuredContent: { id: 'T-1', title: 'Printer on fire' },
    });
  });

  it('wraps a non-object body when the tool says so', async () => {
    const tags = toToolResult(await runInProcess(adapter, get('/tickets/tags')), { ...plain, wrapsResult: true });
    expect(tags).toEqual({
      content: [{ type: 'text', text: '["billing","printer"]' }],
      structuredContent: { result: ['billing', 'printer'] },
    });
    // Nest answers a returned string as text/html.
    const greeting = toToolResult(await runInProcess(adapter, get('/tickets/greeting')), {
      ...plain,
      wrapsResult: true,
    });
    expect(greeting).toEqual({ content: [{ type: 'text', text: 'hello' }], structuredContent: { result: 'hello' } });
    const unwrapped = toToolResult(await runInProcess(adapter, get('/tickets/tags')), plain);
    expect(unwrapped.structuredContent).toBeUndefined();
  });

  it('says there is no content for a 204', async () => {
    const outcome = await runInProcess(adapter, { method: 'DELETE', url: '/tickets/T-1', headers: {} });
    expect(outcome.status).toBe(204);
    expect(toToolResult(outcome, plain)).toEqual({ content: [{ type: 'text', text: 'No content (204)' }] });
  });

  it("names each field a real ValidationPipe refused, as the tool's arguments", async () => {
    const outcome = await runInProcess(adapter, {
      method: 'POST',
      url: '/tickets',
      headers: { 'content-type': 'application/json' },
      body: { title: '', priority: 9, contact: { email: 'not-an-email' } },
    });
    expect(outcome.status).toBe(400);
    const args: Record<string, RestArgumentTarget> = {
      title: { in: 'body', name: 'title' },
      priority: { in: 'body', name: 'priority' },
      contact: { in: 'body', name: 'contact' },
    };
    const result = toToolResult(outcome, { wrapsResult: false, operationLabel: 'POST /tickets', arguments: args });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([
      {
        type: 'text',
        text: [
          'POST /tickets failed (400 Bad Request)',
          '- title: should not be empty',
          '- priority: must not be greater than 5',
          '- contact.email: must be an email',
        ].join('\n'),
      },
    ]);
    expect(result._meta).toEqual({
      [REST_RESULT_META]: {
        status: 400,
        messages: [],
        fields: [
          { field: 'title', messages: ['title should not be empty'] },
          { field: 'priority', messages: ['priority must not be greater than 5'] },
          { field: 'contact.email', messages: ['contact.email must be an email'] },
        ],
      },
    });
  });

  it('names a body property by the argument it came from when they differ', () => {
    const outcome = httpOutcome(
      422,
      { 'content-type': 'application/json' },
      Buffer.from(JSON.stringify({ statusCode: 422, message: ['id must be a UUID', 'Title clashes with another'] })),
    );
    const result = toToolResult(outcome, {
      wrapsResult: false,
      operationLabel: 'PUT /tickets/{id}',
      arguments: { id: { in: 'path', name: 'id' }, body_id: { in: 'body', name: 'id' } },
    });
    expect(result._meta?.[REST_RESULT_META]).toEqual({
      status: 422,
      messages: ['Title clashes with another'],
      fields: [{ field: 'body_id', messages: ['id must be a UUID'] }],
    });
  });

  it('reads the fields of an RFC 9457 problem', () => {
    const problem = {
      type: 'https://example.net/validation-error',
      title: 'Your request is not valid.',
      detail: 'Two fields are wrong.',
      errors: [
        { detail: 'must be a positive integer', pointer: '#/age' },
        { detail: "must be 'green', 'red' or 'blue'", pointer: '#/profile/color' },
      ],
      'invalid-params': [{ name: 'limit', reason: 'must be at most 100' }],
    };
    const outcome = httpOutcome(
      400,
      { 'content-type': 'application/problem+json' },
      Buffer.from(JSON.stringify(problem)),
    );
    const result = toToolResult(outcome, { wrapsResult: false, operationLabel: 'POST /people' });
    expect(result.content).toEqual([
      {
        type: 'text',
        text: [
          'POST /people failed (400 Bad Request): Two fields are wrong.',
          '- age: must be a positive integer',
          "- profile.color: must be 'green', 'red' or 'blue'",
          '- limit: must be at most 100',
        ].join('\n'),
      },
    ]);
  });

  it("gives a 404 as an error result with the route's message, naming no field", async () => {
    const result = toToolResult(await runInProcess(adapter, get('/tickets/T-9')), plain);
    expect(result).toEqual({
      content: [{ type: 'text', text: 'GET /tickets/{id} failed (404 Not Found): Ticket T-9 not found' }],
      isError: true,
      _meta: { [REST_RESULT_META]: { status: 404, fields: [], messages: ['Ticket T-9 not found'] } },
    });
  });

  it("refuses as the host's authorization does on 403 and 401, with the route's message", async () => {
    const outcome = await runInProcess(adapter, get('/tickets/export'));
    expect(outcome.status).toBe(403);
    const forbidden = thrown(() => toToolResult(outcome, plain));
    expect(forbidden).toBeInstanceOf(ForbiddenException);
    expect(classify(forbidden)).toEqual({
      kind: 'business',
      outcome: 'denied',
      message: 'Only supervisors may export tickets',
    });
    const unauthorized = httpOutcome(
      401,
      { 'content-type': 'application/json; charset=utf-8' },
      Buffer.from('{"statusCode":401,"message":"Unauthorized"}'),
    );
    const error = thrown(() => toToolResult(unauthorized, plain));
    expect(error).toBeInstanceOf(UnauthorizedException);
    expect(classify(error)).toEqual({ kind: 'business', outcome: 'denied', message: 'Unauthorized' });
  });

  it('keeps Retry-After on a 429, classified as throttled', async () => {
    const outcome = await runInProcess(adapter, get('/tickets/busy'));
    expect(outcome.status).toBe(429);
    const error = thrown(() => toToolResult(outcome, plain));
    expect(error).toBeInstanceOf(RestThrottledException);
    expect(classify(error)).toEqual({
      kind: 'business',
      outcome: 'throttled',
      message: 'Too many exports, slow down Retry in 7 s.',
      retryAfterSeconds: 7,
    });
  });

  it('throws a 5xx for the log, which the client sees only as an internal error', async () => {
    const outcome = await runInProcess(adapter, get('/tickets/boom'));
    const error = thrown(() => toToolResult(outcome, plain));
    expect((error as Error).message).toBe(
      'REST operation GET /tickets/{id} answered 500: {"statusCode":500,"message":"Internal server error"}',
    );
    expect(classify(error)).toMatchObject({ kind: 'internal', outcome: 'error' });
  });

  it('gives an image as an image block and binary data as a note', () => {
    const png: RestHttpOutcome = httpOutcome(200, { 'content-type': 'image/png' }, Buffer.from([0x89, 0x50]));
    expect(toToolResult(png, plain).content).toEqual([{ type: 'image', data: 'iVA=', mimeType: 'image/png' }]);
    const binary = httpOutcome(200, { 'content-type': 'application/octet-stream' }, Buffer.from([0xff, 0xfe, 0x00]));
    expect(toToolResult(binary, plain).content).toEqual([
      { type: 'text', text: 'Binary response (3 bytes, application/octet-stream)' },
    ]);
  });
});
