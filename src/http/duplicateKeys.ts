// JSON.parse keeps the last of two members with the same name, and secure-json-parse does the same, so a
// body such as {"message":"a","message":"b"} would be read as if "a" had never been sent. I-JSON (RFC 7493
// §2.3) forbids duplicate names; this scan finds them in text that is already known to be valid JSON.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;

/** The members seen so far in one open object; `null` for an open array. */
type Frame = { names: Set<string>; expectingName: boolean } | null;

/**
 * The first member name that appears twice in one object, compared after unescaping ("a" and "\u0061"
 * are the same name), or `undefined`. `text` must be valid JSON: the scan does not check the syntax.
 */
export function firstDuplicateKey(text: string): string | undefined {
  const open: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      const end = endOfString(text, i);
      const frame = open.at(-1);
      if (frame?.expectingName) {
        const raw = text.slice(i, end + 1);
        // Only a name with an escape needs decoding; JSON.parse of one string literal is exact.
        const name = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
        if (frame.names.has(name)) return name;
        frame.names.add(name);
        frame.expectingName = false;
      }
      i = end;
    } else if (code === OPEN_OBJECT) {
      open.push({ names: new Set(), expectingName: true });
    } else if (code === OPEN_ARRAY) {
      open.push(null);
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      open.pop();
    } else if (code === COMMA) {
      const frame = open.at(-1);
      if (frame) frame.expectingName = true;
    }
  }
  return undefined;
}

/** The index of the quote that closes the string literal opening at `start`. */
function endOfString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === QUOTE) return i;
  }
  return text.length;
}
