// Which row of a top-level JSON array a syntax error falls in, so `orders import` can name the first bad
// row of a file that breaks halfway, as it does for a row that parses but is not a valid order.

/** Parses `text`; on a syntax error, says which row (1-based) of the top-level array it is in. */
export function parseJsonRows(text: string): { rows: unknown } | { error: string; row: number | undefined } {
  try {
    return { rows: JSON.parse(text) as unknown };
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    return { error: message, row: rowAt(text, position === undefined ? text.length : Number(position)) };
  }
}

/** The row whose text contains `position`, counting the array's elements as they start. */
function rowAt(text: string, position: number): number | undefined {
  let depth = 0;
  let row = 0;
  let inString = false;
  let expectingElement = false;
  for (let i = 0; i < Math.min(position, text.length); i++) {
    const char = text[i] as string;
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
      continue;
    }
    if (depth === 1 && expectingElement && !/\s/.test(char) && char !== ']') {
      row++;
      expectingElement = false;
    }
    if (char === '"') inString = true;
    else if (char === '[' || char === '{') {
      depth++;
      if (depth === 1 && char === '[') expectingElement = true;
    } else if (char === ']' || char === '}') depth--;
    else if (char === ',' && depth === 1) expectingElement = true;
  }
  if (row === 0) return undefined;
  // An error right where the next element should start belongs to that element.
  return expectingElement ? row + 1 : row;
}
