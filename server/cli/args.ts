/** A command line the operator CLI understands: words, `--name value` (or `--name=value`) and the `--json`/`--help` flags. */
export interface ParsedArgs {
  words: string[];
  options: Record<string, string>;
  json: boolean;
  help: boolean;
}

/** Thrown for a command line that cannot run: the CLI prints the sentence and exits with code 2. */
export class UsageError extends Error {}

const FLAGS = new Set(['json', 'help']);

/**
 * `valued` names the options that take a value. A signed number (`-5`, `+25`) is a word, not an option, so a
 * deduction reads as it is typed: `credits acc_… -5 --reason …`.
 */
export function parseArgs(argv: readonly string[], valued: ReadonlySet<string>): ParsedArgs {
  const parsed: ParsedArgs = { words: [], options: {}, json: false, help: false };
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i] as string;
    if (!token.startsWith('-') || /^[+-]\d+$/.test(token)) {
      parsed.words.push(token);
      continue;
    }
    if (token === '-h') {
      parsed.help = true;
      continue;
    }
    const match = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(token);
    const name = match?.[1];
    if (!match || !name) throw new UsageError(`Unknown option ${token}.`);
    if (FLAGS.has(name)) {
      if (match[2] !== undefined) throw new UsageError(`--${name} takes no value.`);
      parsed[name as 'json' | 'help'] = true;
      continue;
    }
    if (!valued.has(name)) throw new UsageError(`Unknown option --${name}.`);
    const value = match[2] ?? argv[++i];
    if (value === undefined) throw new UsageError(`--${name} needs a value.`);
    parsed.options[name] = value;
  }
  return parsed;
}
