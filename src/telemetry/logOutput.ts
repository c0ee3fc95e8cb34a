// Where the server's log lines go, and in which format: JSON lines for a program, or one readable line
// per record for a person (prettyLog.ts). Each line is on standard output before the logging call returns.
// Pino's default destination hands its writes to libuv's thread pool and, when the process exits, writes
// what it still holds at once: a line still waiting in a busy pool then came out after a later one
// ("stopped" before "stopping"). A blocking write per line costs little at the rate a server logs.
import { writeSync } from 'node:fs';
import type { LogFormat } from '../config.js';
import { prettyLine } from './prettyLog.js';

export type OutputFormat = Exclude<LogFormat, 'auto'>;

/** `auto` is readable on a terminal, and JSON anywhere else: a pipe, a file, a log collector. */
export function chooseLogFormat(setting: LogFormat, isTerminal: boolean): OutputFormat {
  if (setting !== 'auto') return setting;
  return isTerminal ? 'pretty' : 'json';
}

/** What pino writes its lines to: each call is one JSON line. */
export interface LogDestination {
  write(line: string): void;
}

export function logDestination(format: OutputFormat, fd = 1): LogDestination {
  let gone = false;
  const out = (text: string) => {
    if (!gone) gone = !writeFully(fd, text);
  };
  return format === 'pretty' ? { write: (line) => out(prettyLine(line)) } : { write: out };
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** False once the output is gone (its reader closed it): logging stops then, rather than fail requests. */
function writeFully(fd: number, text: string): boolean {
  let rest = Buffer.from(text);
  while (rest.length > 0) {
    try {
      rest = rest.subarray(writeSync(fd, rest));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return false;
      // A non-blocking pipe whose reader is behind: wait for it, as a blocking write would.
      Atomics.wait(pause, 0, 0, 1);
    }
  }
  return true;
}
