/** Start-up diagnostics of the catalog: what is wrong and how to fix it. */
export const CatalogMessages = {
  notImported: (module: string) => ({
    problem: `${module} is not a module of this application, so it has no tools to serve`,
    fix: `import ${module} in the application (e.g. in AppModule's imports), or remove it from include`,
  }),
  duplicateName: (name: string, other: string) => ({
    problem: `tool name "${name}" is already used by ${other}`,
    fix: `give one of them a distinct name: @McpTool({ name: '...' })`,
  }),
  invalidName: (name: string) => ({
    problem: `tool name "${name}" is outside the spec's guidance (1–128 characters of A-Z a-z 0-9 _ - .)`,
    fix: `rename it, e.g. @McpTool({ name: '${name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128) || 'my_tool'}' })`,
  }),
  badUnknownArguments: (value: unknown) => ({
    problem: `unknownArguments ${JSON.stringify(value)} is not a policy`,
    fix: "use 'refuse' (the default), 'strip' or 'allow': @McpTool({ unknownArguments: 'strip' })",
  }),
  badCache: (problem: string, fix: string) => ({ problem: `cache: ${problem}`, fix }),
  badUi: (value: unknown) => ({
    problem: `ui ${JSON.stringify(value)} is not an object`,
    fix: "give the view and who may call the tool: @McpTool({ ui: { resource: 'ui://desk/ticket-card' } })",
  }),
  badUiResource: (value: unknown) => ({
    problem: `ui.resource ${JSON.stringify(value)} is not a ui:// URI`,
    fix: "name the view by its ui:// URI, e.g. ui: { resource: 'ui://desk/ticket-card' } (declared with @McpView)",
  }),
  badUiVisibility: (value: unknown) => ({
    problem: `ui.visibility ${JSON.stringify(value)} is not a non-empty list of 'model' and 'app'`,
    fix: "use ['model', 'app'] (the default), ['model'] or ['app'] (callable from views only)",
  }),
  headerUnreachable: (pointer: string) => ({
    problem: `the input schema has "x-mcp-header" at ${pointer}, which is not a property reached from the root through "properties" alone (not items, anyOf/oneOf/allOf, if/then, $ref or $defs)`,
    fix: 'move the parameter to a top-level (or nested-object) property, or drop its x-mcp-header',
  }),
  headerNotToken: (property: string, header: unknown) => ({
    problem: `"x-mcp-header" of "${property}" is ${JSON.stringify(header)}, not an HTTP header-name token`,
    fix: "use letters, digits and - (e.g. 'Region'): the header sent is Mcp-Param-{name}",
  }),
  headerNotPrimitive: (property: string, type: unknown) => ({
    problem: `"${property}" has "x-mcp-header" but its type is ${JSON.stringify(type)}; only string, integer and boolean parameters can be headers`,
    fix: `give "${property}" the type string, integer or boolean, or drop its x-mcp-header`,
  }),
  headerTwice: (header: string, first: string, second: string) => ({
    problem: `"x-mcp-header" "${header}" is used by "${first}" and "${second}" (header names ignore case)`,
    fix: 'give each parameter a header name of its own',
  }),
  /** A warning, not a diagnostic: the tool is served. */
  unportableSchema: (tool: string, issues: readonly { where: string; problem: string; fix: string }[]) =>
    `Tool "${tool}" has a schema strict clients (Gemini, OpenAI strict mode, the MCP Inspector's --strict) ` +
    `would refuse: ${issues.map(({ where, problem, fix }) => `${where}: ${problem} (fix: ${fix})`).join('; ')}`,
  dtoPrototypeNames: (dto: string, names: readonly string[]) => ({
    problem: `${dto} declares ${names.map((name) => `"${name}"`).join(', ')}, named like a member of every object; class-validator cannot validate such a property (it fails on every call)`,
    fix: 'rename the property, or describe the arguments with a zod schema or a JSON Schema (`input`), which take any name',
  }),
  missingDescription: () => ({
    problem: 'the tool has no description',
    fix: "describe what it does for the model: @McpTool({ description: '...' })",
  }),
  twoSchemaSources: (dto: string) => ({
    problem: `the input schema is given twice: by @McpTool({ input }) and by the @McpArgs() parameter type ${dto}`,
    fix: 'keep one: remove `input`, or type the @McpArgs() parameter as a plain interface',
  }),
  noSchemaSource: () => ({
    problem: '@McpArgs() receives the arguments but there is no input schema to validate them',
    fix: 'type the parameter with a class-validator DTO class, or give @McpTool({ input: zodSchema | jsonSchema })',
  }),
  inputWithoutArgs: () => ({
    problem: 'an input schema is declared but no @McpArgs() parameter receives the arguments',
    fix: 'add an @McpArgs() parameter, or remove `input`',
  }),
  unboundParameter: (index: number) => ({
    problem: `parameter #${index} is not bound to anything the host can supply`,
    fix: 'decorate it with @McpArgs() or @McpContext(), or remove it',
  }),
  primitiveArgs: (type: string) => ({
    problem: `@McpArgs() receives the whole arguments object but the parameter is typed ${type}`,
    fix: "type it with a DTO class or an interface, or bind one property: @McpArgs('name')",
  }),
  unsupportedSchema: (which: 'input' | 'output') => ({
    problem: `the ${which} schema is neither a class-validator DTO class, a zod 4 schema nor a JSON Schema object (zod 3 schemas are not supported)`,
    fix: `pass a DTO class, a zod 4 schema (import { z } from 'zod'), or a JSON Schema object as \`${which}\``,
  }),
  notObjectSchema: (which: 'input' | 'output') => ({
    problem: `the ${which} schema must describe an object (MCP requires "type": "object")`,
    fix: `wrap the value in an object schema, e.g. { type: 'object', properties: { value: ... } }`,
  }),
  schemaFailed: (which: 'input' | 'output', reason: string) => ({
    problem: `the ${which} schema could not be converted to JSON Schema: ${reason}`,
    fix: 'use a schema whose types JSON Schema can express',
  }),
  requestScopedUnsupported: () => ({
    problem: 'the provider is request-scoped but has no module to resolve it from',
    fix: 'make the provider a singleton, or declare it in a module imported by the application',
  }),
} as const;

/** Start-up diagnostics of prompts and resources. */
export const CatalogResourceMessages = {
  promptArgsTwice: (dto: string) => ({
    problem: `the prompt arguments are given twice: by @McpPrompt({ args }) and by the @McpArgs() parameter type ${dto}`,
    fix: 'keep one: remove `args`, or type the @McpArgs() parameter as a plain interface',
  }),
  promptArgsMissing: () => ({
    problem: '@McpArgs() receives prompt arguments but the prompt declares none',
    fix: "declare them: @McpPrompt({ args: [{ name: 'ticketId', required: true }] }), a zod object or a DTO-typed parameter",
  }),
  promptArgsUnused: () => ({
    problem: 'the prompt declares arguments but no @McpArgs() parameter receives them',
    fix: 'add an @McpArgs() parameter, or remove `args`',
  }),
  badPromptArgument: (index: number) => ({
    problem: `args[${index}] needs a non-empty "name"`,
    fix: "write each argument as { name: 'topic', description?: '...', required?: true }",
  }),
  badUri: (uri: string) => ({
    problem: `"${uri}" is not an absolute URI`,
    fix: "give a URI with a scheme, e.g. 'kb://policies/sla' or 'file:///srv/docs/sla.md'",
  }),
  badTemplate: (reason: string) => ({
    problem: `the URI template is invalid: ${reason}`,
    fix: "use RFC 6570 level 1–2 expressions, e.g. 'kb://articles/{slug}' or 'files://{+path}'",
  }),
  templateVariablesUnbound: (variables: readonly string[]) => ({
    problem: `template variables ${variables.join(', ')} reach no parameter`,
    fix: "add @McpArgs() (all variables) or @McpArgs('name') for each one",
  }),
  ambiguousTemplate: (template: string, other: string, where: string) => ({
    problem: `URI template "${template}" matches the same URIs as "${other}" (${where})`,
    fix: 'make their literal parts differ, e.g. kb://articles/{slug} and kb://authors/{id}',
  }),
  missingName: () => ({
    problem: 'the resource has no name',
    fix: "give it one: @McpResource({ uri, name: 'sla' })",
  }),
} as const;
