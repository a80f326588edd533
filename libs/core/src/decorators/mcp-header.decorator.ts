/* eslint-disable @typescript-eslint/no-unsafe-function-type -- DTO classes (`target.constructor`, a `Function`)
   are map keys here: compared, never called. */
/** DTO classes and the header name of each property marked `@McpHeader()` (decorators run once, at class definition). */
const HEADER_PROPERTIES = new Map<Function, Map<string, string>>();

/**
 * Mirrors a tool argument into the `Mcp-Param-{name}` HTTP header of 2026-07-28 `tools/call`
 * requests, so that gateways and load balancers can route on it without reading the body. In the
 * tool's input schema the property carries `"x-mcp-header": name`; the host checks the header
 * against the argument and refuses a call whose header is missing or differs (HTTP 400, `-32020`).
 * Only for `string`, integer and `boolean` properties on the path of `properties` from the root;
 * never for secrets (headers are visible to every intermediary). With zod, use
 * `.meta({ 'x-mcp-header': 'Region' })`; with a JSON Schema, put the keyword on the property.
 *
 * @param name the `{name}` of `Mcp-Param-{name}`: an HTTP token (letters, digits, `-`, …), unique
 *   among the tool's headers regardless of case
 * @example
 * ```ts
 * class RunQueryDto {
 *   @McpHeader('Region') @IsString() region!: string;
 *   @IsString() query!: string;
 * }
 * ```
 */
export function McpHeader(name: string): PropertyDecorator {
  return (target, property) => {
    const type = target.constructor;
    const properties = HEADER_PROPERTIES.get(type) ?? new Map<string, string>();
    properties.set(String(property), name);
    HEADER_PROPERTIES.set(type, properties);
  };
}

/** @internal every class with `@McpHeader()` properties, for the schema generator. */
export function mcpHeaderDtoProperties(): ReadonlyMap<Function, ReadonlyMap<string, string>> {
  return HEADER_PROPERTIES;
}
