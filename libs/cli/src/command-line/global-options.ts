/** The options every command takes, wherever they stand on the command line. */
export interface CliGlobalOptions {
  /** A credential for the host's authenticator (`--api-key`, else the API key environment variable). */
  apiKey: string | undefined;
  /** `text` (content as is) or `json` (structured content, or the whole result). */
  output: 'text' | 'json';
  /** Where images, audio and embedded resources are written. */
  outDir: string | undefined;
  /** Confirms destructive tools without asking. */
  yes: boolean;
  help: boolean;
}

/** A command line without its global options: the command, and the words left for it. */
export interface CliCommandLine {
  command: string | undefined;
  words: string[];
  global: CliGlobalOptions;
}

const VALUED = ['--api-key', '--output', '--out-dir'] as const;

/**
 * Takes the global options out of `argv` (case-insensitive, `--x value` or `--x=value`) and
 * finds the command (the first other word). Everything after `--` is left as it is.
 * @throws Error naming the option, for a global option without its value or an unknown output
 */
export function parseCommandLine(argv: readonly string[], apiKeyFromEnv: string | undefined): CliCommandLine {
  const global: CliGlobalOptions = {
    apiKey: apiKeyFromEnv,
    output: 'text',
    outDir: undefined,
    yes: false,
    help: false,
  };
  const words: string[] = [];
  let command: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i];
    if (word === '--') {
      words.push(...argv.slice(i));
      break;
    }
    const [name, inline] = splitOption(word);
    const valued = VALUED.find((option) => option === name);
    if (valued) {
      const value = inline ?? argv[++i];
      if (value === undefined || (inline === undefined && value.startsWith('--')))
        throw new Error(`${valued}: expected a value`);
      if (valued === '--api-key') global.apiKey = value;
      else if (valued === '--out-dir') global.outDir = value;
      else if (value === 'text' || value === 'json') global.output = value;
      else throw new Error(`--output: expected one of text, json; got "${value}"`);
    } else if (name === '--yes' && inline === undefined) global.yes = true;
    else if ((name === '--help' || word === '-h') && inline === undefined) global.help = true;
    else if (command === undefined && !word.startsWith('-')) command = word;
    else words.push(word);
  }
  return { command, words, global };
}

/** `--Name=value` → [`--name`, `value`]; short options and words are returned as they are. */
function splitOption(word: string): [string, string | undefined] {
  if (!word.startsWith('--')) return [word, undefined];
  const equals = word.indexOf('=');
  return equals < 0 ? [word.toLowerCase(), undefined] : [word.slice(0, equals).toLowerCase(), word.slice(equals + 1)];
}
