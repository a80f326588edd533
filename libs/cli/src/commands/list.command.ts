import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { formatList } from '../help/list-line';

/** `list`: the tools, prompts, resources and templates the caller may use, a line each. */
export async function listCommand(context: CliContext, words: readonly string[]): Promise<CliExitCode> {
  if (words.length > 0) throw new CliFailure(`list: takes no arguments; got "${words[0]}"`, CliExitCode.usage);
  const { invoker, invoke, io } = context;
  const tools = await invoker.listTools(invoke);
  const prompts = await invoker.listPrompts(invoke);
  const resources = await invoker.listResources(invoke);
  const resourceTemplates = await invoker.listResourceTemplates(invoke);
  if (context.global.output === 'json') {
    io.stdout.write(`${JSON.stringify({ tools, prompts, resources, resourceTemplates }, null, 2)}\n`);
    return CliExitCode.ok;
  }
  const width = io.stdout.columns ?? 80;
  const sections: [string, { name: string; description?: string }[]][] = [
    ['Tools', tools],
    ['Prompts', prompts],
    [
      'Resources',
      resources.map((resource) => ({ name: resource.uri, description: resource.description ?? resource.name })),
    ],
    [
      'Resource templates',
      resourceTemplates.map((template) => ({
        name: template.uriTemplate,
        description: template.description ?? template.name,
      })),
    ],
  ];
  const shown = sections.filter(([, entries]) => entries.length > 0);
  shown.forEach(([title, entries], index) => {
    io.stdout.write(`${index > 0 ? '\n' : ''}${title}:\n`);
    for (const line of formatList(entries, width)) io.stdout.write(`${line}\n`);
  });
  if (shown.length === 0) io.stderr.write('Nothing to list: this caller may use no tool, prompt or resource.\n');
  return CliExitCode.ok;
}
