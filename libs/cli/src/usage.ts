/** The command line's own help: its commands and global options. */
export function usageOf(program: string, apiKeyEnv: string): string {
  return `Usage: ${program} <command> [options]

Commands:
  list                    the tools, prompts and resources you may use
  describe <tool>         a tool's options, types, defaults and allowed values
  call <tool> [args]      calls a tool ("${program} call <tool> --help" for its options)
  prompt <name> [args]    gets a prompt (its arguments as --name value)
  read <uri>              reads a resource
  approvals [list]        calls waiting for a person's approval (--status pending|…|all)
  approvals approve <id>  approves one, as the approver you sign in as (--reason <text>)
  approvals deny <id>     denies one (--reason <text>)
  catalog snapshot [file] writes the application's catalog to a file to commit
                          (catalog.snapshot.json by default)
  catalog diff [file]     compares the catalog with it: exit 1 on a change that breaks callers

Options:
  --api-key <key>         who you are (else $${apiKeyEnv}, else the configured operator);
                          refused where the application has no authentication
  --output text|json      text content as is (default), or the result as JSON
  --out-dir <dir>         where images, audio and embedded resources are saved
  --yes                   confirms a destructive tool without asking
  --json '{…}' | -        call: the whole argument object (- reads it from stdin)
  -h, --help              this help, or a command's

Exit codes: 0 done, 1 the tool failed (catalog diff: a breaking change), 2 usage or invalid arguments, 3 refused, 4 not found,
130 interrupted.
`;
}
