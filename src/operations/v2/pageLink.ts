// The `Link` header of a page that has a next one (RFC 8288): the request's own query, with the next
// page's cursor, so the same filters and limit go with it.

export function nextPageLink(path: string, query: Record<string, unknown>, cursor: string): string {
  const next = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (name === 'cursor' || value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) next.append(name, String(item));
  }
  next.append('cursor', cursor);
  return `<${path}?${next.toString()}>; rel="next"`;
}
