// The help pages: every command at once, one noun's commands, or one command with what it does.
import type { Command, Entry, Noun } from './command.js';
import { isNoun } from './command.js';

const COLUMN = 40;

function line(command: Command): string {
  const usage = `  ${command.usage}`;
  return usage.length < COLUMN
    ? `${usage.padEnd(COLUMN)}${command.summary}`
    : `${usage}\n${' '.repeat(COLUMN)}${command.summary}`;
}

function commandsOf(entry: Entry): Command[] {
  if (!isNoun(entry)) return [entry];
  return [...(entry.bare ? [entry.bare] : []), ...Object.values(entry.verbs)];
}

export function overviewHelp(entries: Record<string, Entry>): string {
  return [
    'Usage: store-orders <command> [--help]',
    '',
    ...Object.values(entries).flatMap(commandsOf).map(line),
    '',
    'The commands work on the database at DATABASE_URL (default data/store.db), also while the server',
    'runs. Only init creates it: the others refuse a missing file, as the server does.',
    '`store-orders <command> --help` describes one command.',
    'Exit status: 0 done; 1 refused or failed (one line on stderr); 2 a usage mistake (one line on stderr).',
  ].join('\n');
}

export function nounHelp(noun: string, entry: Noun): string {
  return [
    `Usage: store-orders ${noun} ${entry.bare ? '[<command>]' : '<command>'}`,
    '',
    `${entry.summary}.`,
    '',
    ...commandsOf(entry).map(line),
    '',
    `\`store-orders ${noun} <command> --help\` describes one command.`,
  ].join('\n');
}

export function commandHelp(command: Command): string {
  return [`Usage: store-orders ${command.usage}`, '', command.description].join('\n');
}
