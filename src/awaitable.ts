// A value now or later. A stage that can answer at once (a key or a list already in memory, most of
// SQLite's reads) gives its value, not a promise: the request goes on in the same turn, and a promise is
// made only where something is truly waited for (PostgreSQL, a body to read).
export type Awaitable<T> = T | Promise<T>;

/**
 * `next` of `value`: at once when it is there, else once it settles. A throw of `next` stays a throw. (Not
 * named `then`: a module exporting `then` is a thenable, which `await import()` would call.)
 */
export function andThen<T, U>(value: Awaitable<T>, next: (value: T) => Awaitable<U>): Awaitable<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
