import { readFileSync } from 'node:fs';

/**
 * The list a desk configuration file holds under `key` (`{ "upstreams": [ … ] }`), read as JSON
 * with every `${NAME}` in its strings replaced by the environment variable NAME, which must be
 * set: secrets stay out of the file.
 * @param variable the environment variable that names the file, for messages
 * @param doc where the file's entries are described, for messages
 * @throws Error naming the variable, the file and what is wrong with it
 */
export function readConfigList(
  variable: string,
  file: string,
  key: string,
  doc: string,
  variables: NodeJS.ProcessEnv,
): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${variable}=${file} cannot be read as JSON: ${(error as Error).message}`);
  }
  const list = (parsed as Record<string, unknown> | null)?.[key];
  if (!Array.isArray(list)) throw new Error(`${variable}=${file} must hold { "${key}": [ … ] } (see ${doc})`);
  const missing = new Set<string>();
  const expand = (value: unknown): unknown => {
    if (typeof value === 'string')
      return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_whole, name: string) => {
        const found = variables[name];
        if (found === undefined || found === '') missing.add(name);
        return found ?? '';
      });
    if (Array.isArray(value)) return value.map(expand);
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, expand(item)]));
    return value;
  };
  const expanded = expand(list) as unknown[];
  if (missing.size > 0)
    throw new Error(
      `${variable}=${file} uses ${[...missing].map((name) => `\${${name}}`).join(', ')}: set ${missing.size > 1 ? 'these variables' : 'this variable'}`,
    );
  return expanded;
}
