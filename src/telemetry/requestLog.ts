// Each request's logger. Fastify gives every request a pino child logger that stamps its lines with the
// request id; most requests write no line at the configured level, so here the child is made on the
// request's first line that is written, not for every request. The lines are the child's own either way,
// and carry the request's trace (traceId, spanId), made then too.
import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { requestTrace, traceFields } from '../traceContext.js';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** A log method's arguments, as pino takes them: an object or a message first. */
type LineArguments = [unknown, string?, ...unknown[]];

/** pino can tell whether a level is written; with a logger that cannot, every line goes through the child. */
interface ParentLog extends FastifyBaseLogger {
  isLevelEnabled?(level: string): boolean;
}

class RequestLog implements FastifyBaseLogger {
  readonly #parent: ParentLog;
  readonly #bindings: Bindings;
  readonly #request: IncomingMessage;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: ParentLog, bindings: Bindings, request: IncomingMessage) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#request = request;
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: LineArguments): void {
    this.#write('fatal', args);
  }
  error(...args: LineArguments): void {
    this.#write('error', args);
  }
  warn(...args: LineArguments): void {
    this.#write('warn', args);
  }
  info(...args: LineArguments): void {
    this.#write('info', args);
  }
  debug(...args: LineArguments): void {
    this.#write('debug', args);
  }
  trace(...args: LineArguments): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }

  #write(level: Level, args: LineArguments): void {
    // Once made (a line written, or its level set), the child decides.
    if (this.#child === undefined && this.#parent.isLevelEnabled?.(level) === false) return;
    const child = this.#made();
    child[level](...args);
  }

  #made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(tracedBindings(this.#bindings, this.#request));
    return this.#child;
  }
}

/** A request logger's bindings, with the request's trace. */
function tracedBindings(bindings: Bindings, request: IncomingMessage): Bindings {
  return { ...bindings, ...traceFields(requestTrace(request)) };
}

/**
 * Fastify's factory of request loggers: each request's is made so, unless the route gives it a level or
 * serializers of its own (then pino's child at once, with the trace all the same). The factory, not an
 * overridden `child`, as it is handed the raw request, whose trace the lines carry (Fastify then checks
 * each logger it makes for its methods, a check of seven properties).
 */
export const lazyRequestLogs: NonNullable<FastifyServerOptions['childLoggerFactory']> = function (logger, bindings, options, request) {
  return options.level !== undefined || options.serializers !== undefined
    ? logger.child(tracedBindings(bindings, request), options)
    : new RequestLog(logger, bindings, request);
};
