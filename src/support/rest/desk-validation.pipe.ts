import { BadRequestException, ValidationPipe, type ValidationError } from '@nestjs/common';

/** Constraints that say what a value should be: told before its length or range when several fail. */
const KIND_CONSTRAINTS = ['whitelistValidation', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isIn', 'matches'];

/**
 * The REST API's validation (whitelist, refuse unknown fields, transform), answering Nest's
 * standard 400 body with one message per failing field: `42` as a description is "must be a
 * string", not also "must be longer than 10 characters". Not global: the MCP tools validate
 * their arguments their own way.
 */
export function deskValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    exceptionFactory: (errors) => new BadRequestException(errors.flatMap((error) => messagesOf(error))),
  });
}

function messagesOf(error: ValidationError, parent = ''): string[] {
  const constraints = Object.entries(error.constraints ?? {});
  const kind = constraints.find(([name]) => KIND_CONSTRAINTS.includes(name));
  const first = kind ?? constraints[0];
  const path = parent ? `${parent}.${error.property}` : error.property;
  return [...(first ? [first[1]] : []), ...(error.children ?? []).flatMap((child) => messagesOf(child, path))];
}
