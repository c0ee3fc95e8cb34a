// What a page of API v2's listOrders promises about the orders in it, read off the request's own query:
// at most `limit` of them, in ascending id order, each matching every filter (cancelled ones only when
// asked for), and `nextCursor` and `Link: rel="next"` exactly when `hasMore`.
import { instantAtOrAfter } from '../../src/contract/instants.js';
import type { components } from '../../generated/openapi.v2.js';
import type { ObservedResponse } from './contract.js';

export type OrderV2 = components['schemas']['Order'];
export type OrderPageV2 = components['schemas']['OrderPage'];
export type OrderStatus = components['schemas']['OrderStatus'];

export interface PageFilter {
  statuses: OrderStatus[];
  petId?: number;
  complete?: boolean;
  shipDateFrom?: string;
  shipDateBefore?: string;
}

/** The contract's default statuses: cancelled orders only when asked for. */
export const DEFAULT_STATUSES: OrderStatus[] = ['pending', 'shipped'];
const DEFAULT_LIMIT = 100;

/** The filters of a (valid) query. Bounds become whole-millisecond UTC instants, as the store keeps ship dates. */
export function filterOfQuery(query: URLSearchParams): PageFilter {
  const statuses = query.getAll('status') as OrderStatus[];
  const filter: PageFilter = { statuses: statuses.length > 0 ? statuses : DEFAULT_STATUSES };
  const petId = query.get('petId');
  if (petId !== null) filter.petId = Number(petId);
  const complete = query.get('complete');
  if (complete !== null) filter.complete = complete === 'true';
  for (const bound of ['shipDateFrom', 'shipDateBefore'] as const) {
    const value = query.get(bound);
    if (value !== null) filter[bound] = instantAtOrAfter(value) ?? value;
  }
  return filter;
}

/** Whether an order (as v2 shows it) matches every filter given. */
export function matchesFilter(order: OrderV2, filter: PageFilter): boolean {
  if (!filter.statuses.includes(order.status)) return false;
  if (filter.petId !== undefined && order.petId !== filter.petId) return false;
  if (filter.complete !== undefined && order.complete !== filter.complete) return false;
  // Compared as instants (milliseconds), whatever text order their ISO 8601 forms have beyond the year 9999.
  const shipDate = order.shipDate === undefined ? undefined : Date.parse(order.shipDate);
  if (filter.shipDateFrom !== undefined && (shipDate === undefined || shipDate < Date.parse(filter.shipDateFrom)))
    return false;
  if (filter.shipDateBefore !== undefined && (shipDate === undefined || shipDate >= Date.parse(filter.shipDateBefore)))
    return false;
  return true;
}

/** Every way a 200 page breaks what its query asked for; empty when it keeps every promise. */
export function pageProblems(pathAndQuery: string, response: Pick<ObservedResponse, 'headers' | 'bodyText'>): string[] {
  const query = new URL(pathAndQuery, 'http://localhost').searchParams;
  const filter = filterOfQuery(query);
  const limit = Number(query.get('limit') ?? DEFAULT_LIMIT);
  const page = JSON.parse(response.bodyText) as OrderPageV2;
  const problems: string[] = [];
  if (page.data.length > limit) problems.push(`${page.data.length} orders on a page of at most ${limit}`);
  const ids = page.data.map((order) => order.id);
  if (ids.some((id, index) => index > 0 && id <= ids[index - 1]!)) problems.push(`ids not ascending: ${ids.join()}`);
  for (const order of page.data) {
    if (!matchesFilter(order, filter))
      problems.push(`order ${JSON.stringify(order)} does not match the filters ${JSON.stringify(filter)}`);
  }
  if ((page.nextCursor !== undefined) !== page.hasMore) problems.push(`hasMore ${page.hasMore} with nextCursor ${page.nextCursor}`);
  const link = response.headers.get('link');
  if ((link !== null) !== page.hasMore) problems.push(`hasMore ${page.hasMore} with Link ${link}`);
  if (link !== null && page.nextCursor !== undefined) {
    const next = /^<([^>]+)>; rel="next"$/.exec(link)?.[1];
    const nextQuery = next === undefined ? undefined : new URL(next, 'http://localhost').searchParams;
    if (nextQuery?.get('cursor') !== page.nextCursor) problems.push(`Link ${link} is not the next page's`);
    else if (JSON.stringify(filterOfQuery(nextQuery)) !== JSON.stringify(filter))
      problems.push(`Link ${link} has other filters than the request`);
  }
  return problems;
}
