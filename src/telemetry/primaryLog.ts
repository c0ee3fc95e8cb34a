// The log of the primary process that runs the workers (workers.ts): it has no app, and so no pino, but
// its lines go where the workers' go, in their format and at their LOG_LEVEL.
import { hostname } from 'node:os';
import type { Config } from '../config.js';
import { chooseLogFormat, logDestination } from './logOutput.js';

/** Pino's numbers for its levels, which prettyLog.ts reads. */
const LEVELS = { fatal: 60, error: 50, warn: 40, info: 30, debug: 20, trace: 10, silent: Infinity };

export type PrimaryLog = Record<'info' | 'warn' | 'error', (msg: string, fields?: object) => void>;

export function primaryLog({ logLevel, logFormat }: Pick<Config, 'logLevel' | 'logFormat'>): PrimaryLog {
  const destination = logDestination(chooseLogFormat(logFormat, process.stdout.isTTY === true));
  const host = hostname();
  const at = (level: number) => (msg: string, fields: object = {}) => {
    if (level < LEVELS[logLevel]) return;
    const record = { level, time: Date.now(), pid: process.pid, hostname: host, ...fields, msg };
    destination.write(`${JSON.stringify(record)}\n`);
  };
  return { info: at(LEVELS.info), warn: at(LEVELS.warn), error: at(LEVELS.error) };
}
