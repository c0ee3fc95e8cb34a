// Each request's logger. Fastify gives every request a pino child logger that stamps its lines with the
// request id; most requests write no line at the configured level, so here the child is made on the
// request's first line that is written, not for every request. The lines are the child's own either way.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Parameters<FastifyBaseLogger['child']>[0];
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
/** A log method's arguments, as pino takes them: an object or a message first. */
type LineArguments = [unknown, string?, ...unknown[]];

/** pino can tell whether a level is written; with a logger that cannot, every line goes through the child. */
interface ParentLog extends FastifyBaseLogger {
  isLevelEnabled?(level: string): boolean;
}

/** pino's own `child`, called on the logger whose child it makes. */
type MakeChild = (this: ParentLog, bindings: Bindings, options?: ChildOptions) => FastifyBaseLogger;

class RequestLog implements FastifyBaseLogger {
  readonly #parent: ParentLog;
  readonly #bindings: Bindings;
  readonly #makeChild: MakeChild;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: ParentLog, bindings: Bindings, makeChild: MakeChild) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#makeChild = makeChild;
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
    this.#child ??= this.#makeChild.call(this.#parent, this.#bindings);
    return this.#child;
  }
}

/**
 * `logger`, whose children are made so, unless made with a level or serializers of their own: given to
 * Fastify as its logger instance, it makes the logger of each request. (Fastify would also take a factory
 * of request loggers, `childLoggerFactory`, but then checks each request's logger for its methods.) The
 * children of pino's loggers inherit from their parent, this `child` included.
 */
export function withLazyRequestLogs<Log extends ParentLog>(logger: Log): Log {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- always called on a logger, below.
  const makeChild: MakeChild = logger.child;
  const child: MakeChild = function (bindings, options) {
    return options?.level !== undefined || options?.serializers !== undefined
      ? makeChild.call(this, bindings, options)
      : new RequestLog(this, bindings, makeChild);
  };
  return Object.assign(logger, { child });
}
