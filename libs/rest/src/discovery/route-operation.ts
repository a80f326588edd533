import type { Type } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import type { JsonSchemaObject } from '#libs/core';
import type { JsonSchemaFactory } from '#libs/catalog';
import type { RestOperation, RestParameter, RestParameterLocation } from '../openapi/rest-operation';
import type { NestRoute } from './nest-route';

interface RouteArgument {
  index: number;
  data?: unknown;
}

/** JSON Schema of a parameter declared as a primitive (`@Param('id') id: number`); a string otherwise. */
function primitiveSchema(type: unknown): JsonSchemaObject {
  if (type === Number) return { type: 'number' };
  if (type === Boolean) return { type: 'boolean' };
  return { type: 'string' };
}

/**
 * The schema of a whole `@Body()` that is no DTO class: `LineDto[]` and `Record<…>` compile to
 * `Array` and `Object`, an interface or a union to `Object` or nothing. It becomes the tool's one
 * `body` argument, so what the caller sends still reaches the route.
 */
function wholeBodySchema(type: unknown): JsonSchemaObject {
  if (type === Array) return { type: 'array' };
  if (type === Object) return { type: 'object' };
  if (type === String || type === Number || type === Boolean) return primitiveSchema(type);
  return {};
}

function isDto(type: unknown): type is Type<object> {
  return typeof type === 'function' && ![String, Number, Boolean, Object, Array].includes(type as never);
}

/**
 * Describes a route as an OpenAPI operation from what Nest knows of it, for applications
 * without `@nestjs/swagger`: `@Param`, `@Query`, `@Headers` and `@Body` arguments (named ones
 * as single parameters; a DTO class as its properties, through class-validator's metadata).
 * There is no summary, no tag and no response type: give a description with `@McpExpose`.
 * The operation id is Swagger's default, `Controller_method`.
 */
export function routeOperation(route: NestRoute, schemas: JsonSchemaFactory): RestOperation {
  const stored = (Reflect.getMetadata(ROUTE_ARGS_METADATA, route.controller, route.methodName) ?? {}) as Record<
    string,
    RouteArgument
  >;
  const types = (Reflect.getMetadata('design:paramtypes', route.controller.prototype, route.methodName) ??
    []) as unknown[];
  const parameters: RestParameter[] = [];
  let requestBody: RestOperation['requestBody'];
  const bodyProperties: Record<string, JsonSchemaObject> = {};

  const addDtoProperties = (where: RestParameterLocation, dto: Type<object>) => {
    const schema = schemas.create(dto);
    const required = new Set(schema.required ?? []);
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      parameters.push({ name, in: where, required: required.has(name), schema: property as JsonSchemaObject });
    }
  };

  for (const [key, argument] of Object.entries(stored)) {
    const kind = Number(key.split(':')[0]);
    if (Number.isNaN(kind)) continue; // a custom parameter decorator reads the request itself
    const type = types[argument.index];
    const name = typeof argument.data === 'string' ? argument.data : undefined;
    switch (kind as RouteParamtypes) {
      case RouteParamtypes.PARAM:
        if (name) parameters.push({ name, in: 'path', required: true, schema: primitiveSchema(type) });
        else for (const param of pathParams(route.path)) parameters.push(param);
        break;
      case RouteParamtypes.QUERY:
        if (name) parameters.push({ name, in: 'query', required: false, schema: primitiveSchema(type) });
        else if (isDto(type)) addDtoProperties('query', type);
        break;
      case RouteParamtypes.HEADERS:
        if (name)
          parameters.push({ name: name.toLowerCase(), in: 'header', required: false, schema: { type: 'string' } });
        break;
      case RouteParamtypes.BODY:
        if (name) bodyProperties[name] = isDto(type) ? schemas.create(type) : primitiveSchema(type);
        else
          requestBody = {
            required: true,
            contentType: 'application/json',
            schema: isDto(type) ? schemas.create(type) : wholeBodySchema(type),
          };
        break;
    }
  }
  if (!requestBody && Object.keys(bodyProperties).length > 0) {
    requestBody = {
      required: true,
      contentType: 'application/json',
      schema: { type: 'object', properties: bodyProperties, required: Object.keys(bodyProperties) },
    };
  }
  // Path parameters the handler does not read are still part of the URL.
  for (const param of pathParams(route.path)) {
    if (!parameters.some((known) => known.in === 'path' && known.name === param.name)) parameters.push(param);
  }
  return {
    method: route.method,
    path: route.path,
    operationId: `${route.controller.name}_${route.methodName}`,
    tags: [],
    parameters: dedupe(parameters),
    ...(requestBody && { requestBody }),
    responses: [],
    source: {},
  };
}

function pathParams(path: string): RestParameter[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
    name,
    in: 'path' as const,
    required: true,
    schema: { type: 'string' },
  }));
}

function dedupe(parameters: RestParameter[]): RestParameter[] {
  const seen = new Set<string>();
  return parameters.filter((parameter) => {
    const key = `${parameter.in}:${parameter.name}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
