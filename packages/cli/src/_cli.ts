import { UsageError } from './_errors.js';
import type { CommandIO } from './_io.js';
import { ValueError } from './_values.js';

/*
 * Commands are data: a typed table of flags per command, from which the argument parser, the
 * usage line, `--help` and the flag table of docs/cli.md are all generated, so they cannot drift.
 * Parsing is strict: unknown flags, stray positionals, missing or unreadable values are all
 * collected and reported together (exit 2), never ignored.
 */

interface FlagBase {
  /** One letter, e.g. `c` for `-c`. */
  short?: string;
  /** One line for `--help` and the README's list of commands. */
  help: string;
  /** The default as users see it; computed from the SDK's DEFAULTS so it cannot drift. */
  default?: string;
}

/** `--json`; with `negatable`, a switch that is on by default and turned off by `--no-NAME`. */
interface SwitchFlag extends FlagBase {
  type: 'switch';
  negatable?: boolean;
}

/** A flag with a value: `--duration 10s`, `-d10s`, `--duration=10s`. */
interface ValueFlag<T> extends FlagBase {
  type: 'value';
  /** Placeholder in help: `S`, `N`, `NAME`, `MIN[,MAX]`. */
  value: string;
  /** Reads the raw text; throws `ValueError` with what was expected. */
  parse: (raw: string) => T;
  /** Repeats add up (lists); otherwise the last occurrence wins. */
  repeatable?: boolean;
}

/** A flag that no longer exists: using it prints `message` (what replaced it), exit 2. Not in help. */
interface RemovedFlag {
  type: 'removed';
  message: string;
}

type Flag = SwitchFlag | ValueFlag<unknown> | RemovedFlag;
export type FlagTable = Record<string, Flag>;

/** The parsed values of a flag table: keys as in the table (camelCase), absent when not given. */
export type FlagValues<T extends FlagTable> = {
  -readonly [K in keyof T as T[K] extends RemovedFlag ? never : K]?: T[K] extends ValueFlag<infer V> ? V : boolean;
};

interface Positional {
  name: string;
  help: string;
  required?: boolean;
  /** Takes every remaining argument (only the last positional). */
  variadic?: boolean;
}

export interface ParsedArgs<F extends FlagTable> {
  flags: FlagValues<F>;
  positionals: string[];
}

/** A command as data; `run` returns the exit code. */
export interface Command<F extends FlagTable = FlagTable> {
  name: string;
  /** One line, shown in `benchsuite --help` and at the top of the command's help. */
  summary: string;
  positionals?: readonly Positional[];
  flags: F;
  examples: readonly (readonly [command: string, what: string])[];
  exitCodes: readonly (readonly [code: number, meaning: string])[];
  /** Explains a positional the command does not take, e.g. `did you mean --suite gateway?`. */
  strayHint?: (arg: string) => string | undefined;
  run: (args: ParsedArgs<F>, io: CommandIO) => Promise<number>;
}

/** Identity helper that keeps the flag table's literal types (for `FlagValues`). */
export function defineCommand<const F extends FlagTable>(command: Command<F>): Command<F> {
  return command;
}

/** `dryRun` → `dry-run`. */
export const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length]!;
}

/** The closest of `candidates` to `word`, when it is close enough to be a typo. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return bestD <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/** True when argv asks for help (before a `--`). */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((t) => t === '--help' || t === '-h');
}

/** Parse argv against a command's table; every problem is collected into one `UsageError`. */
export function parseArgs<F extends FlagTable>(command: Command<F>, argv: readonly string[]): ParsedArgs<F> {
  const issues: string[] = [];
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  const long = new Map<string, [string, Flag]>();
  const short = new Map<string, [string, SwitchFlag | ValueFlag<unknown>]>();
  for (const [key, flag] of Object.entries(command.flags)) {
    long.set(kebab(key), [key, flag]);
    if (flag.type !== 'removed' && flag.short) short.set(flag.short, [key, flag]);
  }
  const liveNames = [...long].filter(([, [, f]]) => f.type !== 'removed').map(([n]) => n);
  const unknown = (token: string) => {
    const near = token.startsWith('--') ? closest(token.slice(2), liveNames) : undefined;
    return `unknown option ${token}${near ? `; did you mean --${near}?` : ''} (see \`benchsuite ${command.name} --help\`)`;
  };
  // A value may look like a negative number (`--seed -1`) but not like another flag.
  const looksLikeFlag = (t: string) => t.startsWith('-') && t !== '-' && !/^-\d/.test(t);

  let i = 0;
  const take = (key: string, flag: ValueFlag<unknown>, label: string, inline: string | undefined) => {
    let raw = inline;
    if (raw === undefined) {
      const next = argv[i + 1];
      if (next === undefined || looksLikeFlag(next)) {
        issues.push(`${label} needs a value (${flag.value})`);
        return;
      }
      raw = next;
      i++;
    }
    try {
      const v = flag.parse(raw);
      const prev = values[key];
      values[key] = flag.repeatable && Array.isArray(prev) && Array.isArray(v) ? [...prev, ...v] : v;
    } catch (e) {
      if (!(e instanceof ValueError)) throw e;
      issues.push(`${label}: ${e.message}`);
    }
  };

  for (; i < argv.length; i++) {
    const tok = argv[i]!;
    if (tok === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (tok.startsWith('--')) {
      const eq = tok.indexOf('=');
      const name = eq < 0 ? tok.slice(2) : tok.slice(2, eq);
      const inline = eq < 0 ? undefined : tok.slice(eq + 1);
      let entry = long.get(name);
      let negated = false;
      if (!entry && name.startsWith('no-')) {
        const off = long.get(name.slice(3));
        if (off && off[1].type === 'switch' && off[1].negatable) [entry, negated] = [off, true];
      }
      if (!entry) {
        issues.push(unknown(`--${name}`));
        // Its value, if it had one, is not a stray argument worth a second message.
        if (inline === undefined && argv[i + 1] !== undefined && !looksLikeFlag(argv[i + 1]!)) i++;
        continue;
      }
      const [key, flag] = entry;
      if (flag.type === 'removed') {
        issues.push(`--${name}: ${flag.message}`);
        if (inline === undefined && argv[i + 1] !== undefined && !looksLikeFlag(argv[i + 1]!)) i++;
      } else if (flag.type === 'switch') {
        if (inline !== undefined) issues.push(`--${name} takes no value (got "${tok}")`);
        else values[key] = !negated;
      } else take(key, flag, `--${name}`, inline);
      continue;
    }
    if (looksLikeFlag(tok)) {
      // Short flags: `-c 50`, `-c50`, and bundled switches `-n` … `-nq`.
      for (let j = 1; j < tok.length; j++) {
        const entry = short.get(tok[j]!);
        if (!entry) {
          issues.push(unknown(`-${tok[j]}`));
          break;
        }
        const [key, flag] = entry;
        if (flag.type === 'switch') {
          values[key] = true;
          continue;
        }
        const rest = tok.slice(j + 1).replace(/^=/, '');
        take(key, flag, `-${tok[j]}/--${kebab(key)}`, rest || undefined);
        break;
      }
      continue;
    }
    positionals.push(tok);
  }

  const specs = command.positionals ?? [];
  const required = specs.filter((p) => p.required);
  if (positionals.length < required.length) {
    issues.push(
      `missing ${required
        .slice(positionals.length)
        .map((p) => `<${p.name}>`)
        .join(' ')} (see \`benchsuite ${command.name} --help\`)`,
    );
  }
  if (!specs.at(-1)?.variadic) {
    for (const extra of positionals.slice(specs.length)) {
      const hint = command.strayHint?.(extra);
      issues.push(`unexpected argument "${extra}"${hint ? `; ${hint}` : ''}`);
    }
  }
  if (issues.length) throw new UsageError(issues);
  return { flags: values as FlagValues<F>, positionals };
}

// ---------------------------------------------------------------------------------------------
// Text generated from the tables

/** `-d, --duration S`, `--no-verify`; `align` indents long-only flags under the long names of the others (help). */
function flagLabel(key: string, flag: SwitchFlag | ValueFlag<unknown>, align = false): string {
  const name = flag.type === 'switch' && flag.negatable ? `--no-${kebab(key)}` : `--${kebab(key)}`;
  const value = flag.type === 'value' ? ` ${flag.value}` : '';
  return `${flag.short ? `-${flag.short}, ` : align ? '    ' : ''}${name}${value}`;
}

/** A flag's help line with its default. */
function flagMeaning(flag: SwitchFlag | ValueFlag<unknown>): string {
  return flag.default === undefined ? flag.help : `${flag.help} (default: ${flag.default})`;
}

/** `benchsuite report <results.json> [options]`. */
export function synopsis(command: Command): string {
  const pos = (command.positionals ?? []).map((p) => {
    const inner = `<${p.name}${p.variadic ? '…' : ''}>`;
    return p.required ? inner : `[${inner}]`;
  });
  return ['benchsuite', command.name, ...pos, '[options]'].join(' ');
}

const visibleFlags = (command: Command) => Object.entries(command.flags).filter((e): e is [string, SwitchFlag | ValueFlag<unknown>] => e[1].type !== 'removed');

/** Two aligned columns; long left cells put the right one on the next line. */
function columns(rows: readonly (readonly [string, string])[], indent: number, width: number, style: (s: string) => string): string {
  const left = Math.min(34, Math.max(...rows.map(([l]) => l.length)) + 2);
  const wrap = (text: string, at: number) => {
    const room = Math.max(30, width - at);
    const lines: string[] = [];
    let line = '';
    for (const word of text.split(' ')) {
      if (line && line.length + 1 + word.length > room) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    lines.push(line);
    return lines.join(`\n${' '.repeat(at)}`);
  };
  return rows
    .map(([l, r]) => {
      const pad = ' '.repeat(indent);
      if (l.length + 2 > left) return `${pad}${style(l)}\n${' '.repeat(indent + left)}${wrap(r, indent + left)}`;
      return `${pad}${style(l)}${' '.repeat(left - l.length)}${wrap(r, indent + left)}`;
    })
    .join('\n');
}

export interface HelpStyle {
  color: boolean;
  /** Wrap width (the terminal's columns, else 100). */
  width?: number;
}

/** The command's `--help`: usage, arguments, options with defaults, examples, exit codes. */
export function renderHelp(command: Command, style: HelpStyle): string {
  const bold = (s: string) => (style.color ? `\u001b[1m${s}\u001b[22m` : s);
  const width = style.width ?? 100;
  const out = [`${bold(`benchsuite ${command.name}`)} — ${command.summary}`, '', bold('Usage:'), `  ${synopsis(command)}`];
  if (command.positionals?.length) {
    out.push(
      '',
      bold('Arguments:'),
      columns(
        command.positionals.map((p) => [`<${p.name}${p.variadic ? '…' : ''}>`, p.help] as const),
        2,
        width,
        (s) => s,
      ),
    );
  }
  const rows = visibleFlags(command).map(([k, f]) => [flagLabel(k, f, true), flagMeaning(f)] as const);
  rows.push(['-h, --help', 'show this help']);
  out.push('', bold('Options:'), columns(rows, 2, width, bold));
  if (command.examples.length) {
    out.push('', bold('Examples:'), command.examples.map(([cmd, what]) => `  ${cmd}\n      ${what}`).join('\n'));
  }
  out.push(
    '',
    bold('Exit codes:'),
    columns(
      command.exitCodes.map(([c, m]) => [String(c), m] as const),
      2,
      width,
      (s) => s,
    ),
  );
  return `${out.join('\n')}\n`;
}

/** Table-cell text: pipes escaped, and `<name>` shown rather than taken for an HTML tag. */
const md = (s: string) => s.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The flag table of a command in docs/cli.md (`| flag | meaning |`). */
export function renderFlagsMarkdown(command: Command): string {
  const rows = visibleFlags(command).map(([k, f]) => `| \`${flagLabel(k, f).replace(/\|/g, '\\|')}\` | ${md(flagMeaning(f))} |`);
  return ['| flag | meaning |', '|---|---|', ...rows].join('\n');
}
