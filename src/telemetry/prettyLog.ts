// One readable line per log record, for a person at a terminal:
//   2026-11-23 20:12:05.123+01:00 INFO  request completed GET /v1/store/orders status=200 duration=1.2ms reqId=7f3c…
// local time, level, message, then the record's own fields as key=value; an error's stack follows on
// indented lines. It reads the JSON line pino made, so both formats always say the same.
const LEVELS: Record<string, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

/** Shown in their own way, or not at all (the process id and host name are the same on every line). */
const APART = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'req', 'method', 'route', 'res', 'responseTime', 'err']);

export function prettyLine(json: string): string {
  let record: unknown;
  try {
    record = JSON.parse(json);
  } catch {
    return json;
  }
  if (typeof record !== 'object' || record === null) return json;
  const fields = record as Record<string, unknown>;
  const parts = [
    localTime(fields.time),
    (LEVELS[String(fields.level)] ?? String(fields.level)).padEnd(5),
    escapeControls(typeof fields.msg === 'string' ? fields.msg : valueText(fields.msg ?? '')),
    ...requestParts(fields),
  ];
  for (const [key, value] of Object.entries(fields)) {
    if (!APART.has(key) && value !== undefined) parts.push(`${key}=${valueText(value)}`);
  }
  const { line, stack } = errorParts(fields.err);
  if (line) parts.push(line);
  return `${parts.join(' ')}\n${stack}`;
}

/**
 * The request lines: the method and path (an incoming request's URL, or an answered one's route), the
 * status and how long the answer took.
 */
function requestParts({ req, method, route, res, responseTime }: Record<string, unknown>): string[] {
  const parts: string[] = [];
  const request = req as { method?: unknown; url?: unknown } | undefined;
  if (request?.method !== undefined) parts.push(`${valueText(request.method)} ${valueText(request.url)}`);
  if (method !== undefined) parts.push(route === undefined ? valueText(method) : `${valueText(method)} ${valueText(route)}`);
  const status = (res as { statusCode?: unknown } | undefined)?.statusCode;
  if (status !== undefined) parts.push(`status=${valueText(status)}`);
  if (typeof responseTime === 'number') parts.push(`duration=${responseTime.toFixed(1)}ms`);
  return parts;
}

function errorParts(err: unknown): { line?: string; stack: string } {
  if (typeof err !== 'object' || err === null) return { stack: '' };
  const { type, message, stack } = err as { type?: unknown; message?: unknown; stack?: unknown };
  const text = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
  const line = `err=${valueText(`${text(type, 'Error')}: ${text(message, '')}`)}`;
  if (typeof stack !== 'string') return { line, stack: '' };
  const frames = stack.split('\n').filter((frame) => /^\s+at /.test(frame));
  return { line, stack: frames.map((frame) => `    ${frame.trim()}\n`).join('') };
}

/** A bare word as it is; anything with spaces, quotes, `=` or control characters quoted as JSON. */
function valueText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=\\\p{Cc}]+$/u.test(value) ? value : JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return JSON.stringify(value);
  return String(value);
}

/** A message stays on its line: a control character is shown escaped. */
function escapeControls(text: string): string {
  return text.replace(/\p{Cc}/gu, (control) => JSON.stringify(control).slice(1, -1));
}

/** ISO 8601 in the machine's time zone, with its offset: `2026-11-23 20:12:05.123+01:00`. */
export function localTime(time: unknown): string {
  if (typeof time !== 'number') return '-';
  const date = new Date(time);
  const offsetMinutes = -date.getTimezoneOffset();
  const shifted = new Date(time + offsetMinutes * 60_000).toISOString().slice(0, 23).replace('T', ' ');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offsetMinutes) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offsetMinutes) % 60).padStart(2, '0');
  return `${shifted}${sign}${hours}:${minutes}`;
}
