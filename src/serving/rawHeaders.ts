// Node keeps only the first of repeated `Authorization` and `Content-Type` fields and drops the rest
// silently. A request that sends either twice is ambiguous, so the raw list decides.

/** Every value sent for `name` (lower case), in order, repeated fields included. */
export function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (isField(rawHeaders[i] as string, name)) values.push(rawHeaders[i + 1] as string);
  }
  return values;
}

/** Whether a raw field's name is `name` (lower case), in any case. */
export function isField(field: string, name: string): boolean {
  // The length first: most fields are told apart without a lower-case copy of their name.
  return field.length === name.length && field.toLowerCase() === name;
}

/** The one value of a field that must not repeat; `undefined` when it is absent or sent more than once. */
export function singleHeader(rawHeaders: readonly string[], name: string): string | undefined {
  const values = headerValues(rawHeaders, name);
  return values.length === 1 ? values[0] : undefined;
}
