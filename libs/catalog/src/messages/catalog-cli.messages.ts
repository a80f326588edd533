/** Start-up diagnostics of a tool's `cli` declaration: what is wrong and how to fix it. */
export const CatalogCliMessages = {
  notObject: (field: string, value: unknown) => ({
    problem: `${field} is ${JSON.stringify(value) ?? String(value)}, not an object`,
    fix:
      field === 'cli'
        ? "declare it as an object: @McpTool({ cli: { positional: ['ticketId'], aliases: { status: '-s' } } })"
        : `map property names to values: ${field}: { ticketId: ${field === 'cli.names' ? "'id'" : "'-t'"} }`,
  }),
  positionalNotList: (value: unknown) => ({
    problem: `cli.positional is ${JSON.stringify(value) ?? String(value)}, not a list of property names`,
    fix: "list the properties in the order they are given: cli: { positional: ['ticketId'] }",
  }),
  unknownProperty: (field: string, property: unknown, known: readonly string[]) => ({
    problem: `${field} names ${JSON.stringify(property) ?? String(property)}, which is not a property of the input schema`,
    fix:
      known.length > 0
        ? `use one of the input's top-level properties: ${known.join(', ')}`
        : `the input schema has no properties; remove ${field}`,
  }),
  positionalTwice: (property: string) => ({
    problem: `cli.positional lists "${property}" twice`,
    fix: 'list each property once',
  }),
  objectPositional: (property: string) => ({
    problem: `"${property}" is positional but its value is an object (or composes more than a word can say)`,
    fix: `remove it from cli.positional; its option takes the value as JSON, or --json takes the whole arguments`,
  }),
  arrayPositionalNotLast: (property: string) => ({
    problem: `"${property}" is an array, so as a positional argument it takes every remaining argument, but it is not the last positional property`,
    fix: `move "${property}" to the end of cli.positional, or remove it from there`,
  }),
  malformedAlias: (property: string, alias: unknown) => ({
    problem: `alias ${JSON.stringify(alias) ?? String(alias)} of "${property}" is neither a short option (-x, one letter) nor a long one (--name)`,
    fix: `write it as '-s' or '--st': cli: { aliases: { ${property}: ['-s', '--st'] } }`,
  }),
  malformedName: (property: string, name: string) => ({
    problem: `CLI name ${JSON.stringify(name)} of "${property}" is not an option name (a letter or digit, then letters, digits, _ . or -)`,
    fix: `write it without dashes, e.g. cli: { names: { ${property}: '${name.replace(/^-+/, '') || 'name'}' } }`,
  }),
  noName: (property: string) => ({
    problem: `"${property}" has no letter or digit to make an option name of`,
    fix: `give it one: cli: { names: { '${property}': 'name' } }`,
  }),
  clash: (option: string, first: string, second: string, source: string) => ({
    problem: `${option} (${source} of "${second}") is already an option of "${first}" (long options ignore case)`,
    fix: `give one of them another CLI name, cli: { names: { ${second}: '...' } }, or drop the alias`,
  }),
  reserved: (option: string, property: string, source: string) => ({
    problem: `${option} (${source} of "${property}") is an option the CLI keeps for itself`,
    fix: `give "${property}" another CLI name, cli: { names: { ${property}: '...' } }, or drop the alias`,
  }),
} as const;
