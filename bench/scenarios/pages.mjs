// API v2's pages of orders against the OFFSET pages of bare Fastify (naivePages.mjs), on copies of one file
// where every 100th order is shipped: the first page of 100, the page 90% deep (by cursor; by OFFSET), the
// first page of the shipped orders (1%); then a walk of every page against one v1 list of the same orders.
import { baseline, idle, project, startAll } from '../harness/contenders.mjs';
import { described, fail, seeded } from '../harness/lifecycle.mjs';
import { loadResult } from '../harness/load.mjs';
import { median, ratio, report } from '../harness/report.mjs';
import { ROUNDS, SMOKE } from '../harness/settings.mjs';
import { readWholeList } from '../harness/wholeList.mjs';

const CONTENDERS = [project(), baseline('naivePages')];
const ORDER_COUNT = SMOKE ? 20_000 : 1_000_000;
/** The walks' page size: the contract's largest, which also spares the OFFSET baseline the most pages. */
const WALK_LIMIT = 1_000;

/** The target of `link`'s `rel="next"` (RFC 8288), resolved against `server`; undefined on the last page. */
function nextPageUrl(server, link) {
  const next = /<([^>]*)>\s*;\s*rel="?next"?/.exec(link ?? '');
  return next && new URL(next[1], server.url).href;
}

/**
 * Every page from `firstPath` on, following each answer's `Link: <…>; rel="next"` as a client does, each
 * body read to its end; the wall time, the pages and the bytes. `onPage`, when given, sees each page parsed
 * (the untimed walk that checks the pages and finds the deep cursor).
 */
async function walkPages(server, key, firstPath, onPage) {
  const started = performance.now();
  let url = `${server.url}${firstPath}`;
  let pages = 0;
  let bytes = 0;
  while (url) {
    const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200) fail(`${described(server)}\n(${url} answered ${response.status} in a walk)`);
    pages += 1;
    bytes += body.length;
    onPage?.(JSON.parse(body.toString('utf8')));
    url = nextPageUrl(server, response.headers.get('link'));
  }
  return { ms: performance.now() - started, pages, bytes };
}

/**
 * One walk of the project's pages, untimed, checking that it lists every order once in id order, with
 * `hasMore` and `nextCursor` as the contract says; the `nextCursor` of the page that ends `depth` orders in.
 */
async function deepCursor(server, key, orderCount, depth) {
  let seen = 0;
  let cursor;
  const broken = (why) => fail(`${described(server)}\n(the walk of its pages ${why})`);
  await walkPages(server, key, `/v2/store/orders?limit=${WALK_LIMIT}`, (page) => {
    for (const order of page.data) if (order.id !== ++seen) broken(`listed order ${order.id} as order ${seen}`);
    if (page.hasMore !== seen < orderCount || page.hasMore !== (page.nextCursor !== undefined))
      broken(`said hasMore ${page.hasMore}, nextCursor ${page.nextCursor} after ${seen} orders`);
    if (seen === depth) cursor = page.nextCursor;
  });
  if (seen !== orderCount) broken(`ended after ${seen} of ${orderCount} orders`);
  return cursor;
}

/**
 * Walks of every page, the project's and naive OFFSET's, against the project's v1 list of every order, in
 * alternating order; each one's times, and the bytes of the project's walk.
 */
async function walks(project, naive, key) {
  const pagesWanted = Math.ceil(ORDER_COUNT / WALK_LIMIT);
  const times = { project: [], naivePages: [], list: [] };
  let bytes = 0;
  // The OFFSET walk reads about orderCount² / (2 × WALK_LIMIT) rows (minutes at 1,000,000 orders): once.
  for (let round = 0; round < ROUNDS; round++) {
    const order = [project, 'list', ...(round === 0 ? [naive] : [])];
    for (const contender of round % 2 === 0 ? order : order.reverse()) {
      if (contender === 'list') {
        times.list.push((await readWholeList(project, key)).ms);
        continue;
      }
      const walk = await walkPages(contender, key, `/v2/store/orders?limit=${WALK_LIMIT}`);
      if (walk.pages !== pagesWanted) fail(`${described(contender)}\n(its walk took ${walk.pages} pages, not ${pagesWanted})`);
      times[contender.kind].push(walk.ms);
      if (contender === project) bytes = walk.bytes;
    }
  }
  return { times, bytes };
}

/**
 * Req/s of each of `paths`' pages, each contender's median. Each round loads the three pages in turn, so
 * that whatever else loads the machine weighs on each alike. 50 connections wait on an OFFSET page 90% deep
 * in turn, longer than autocannon's default 10 s; its req/s are counted as completed requests over the
 * run's time (a few a second, which autocannon's average of whole seconds rounds down); and the next run
 * waits until the contender has answered the requests still in flight when a run ended (up to 50 OFFSET
 * pages), so that no backlog takes the next run's cores.
 */
async function pageRates(project, naive, key, paths) {
  const samples = Object.fromEntries(Object.keys(paths).map((page) => [page, { project: [], naivePages: [] }]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const page of Object.keys(paths)) {
      for (const contender of round % 2 === 0 ? [project, naive] : [naive, project]) {
        const result = await loadResult(contender, paths[page][contender.kind], key, { timeout: 120 });
        await idle(contender);
        samples[page][contender.kind].push(result.requests.total / result.duration);
      }
    }
  }
  const medians = ({ project, naivePages }) => ({ project: median(project), naivePages: median(naivePages) });
  return Object.fromEntries(Object.entries(samples).map(([page, rates]) => [page, medians(rates)]));
}

function reportPages({ first, deep, shipped }, depth) {
  const perSecond = (rps) => (rps < 10 ? rps.toFixed(1) : Math.round(rps));
  const rpsRow = (scenario, rps, more = '') =>
    report([
      scenario,
      `${perSecond(rps.project)} req/s`,
      `naive OFFSET ${perSecond(rps.naivePages)}`,
      `${ratio(rps.project, rps.naivePages)} naive OFFSET${more}`,
    ]);
  const deepBy = (kind) => ratio(first[kind], deep[kind]);
  rpsRow(`v2 listOrders, first page of 100, ${ORDER_COUNT.toLocaleString('en')} orders`, first);
  rpsRow(
    `v2 listOrders, page ${depth.toLocaleString('en')} deep`,
    deep,
    `; time per page deep/first ${deepBy('project')} (≤ 1.2×), naive OFFSET's ${deepBy('naivePages')}`,
  );
  rpsRow('v2 listOrders, status=shipped (1%)', shipped);
}

function reportWalks({ times, bytes }) {
  const walk = median(times.project);
  const list = median(times.list);
  const naive = median(times.naivePages);
  report([
    `v2 walk of every page (limit ${WALK_LIMIT.toLocaleString('en')}), ${ORDER_COUNT.toLocaleString('en')} orders (${(bytes / 1e6).toFixed(0)} MB)`,
    `${walk.toFixed(0)} ms`,
    `v1 list ${list.toFixed(0)} ms; naive OFFSET walk ${naive.toFixed(0)} ms`,
    `${ratio(walk, list)} v1 list, ${ratio(walk, naive)} naive OFFSET walk`,
  ]);
}

export default {
  name: 'pages',
  async run() {
    const { path, key } = await seeded(ORDER_COUNT, { shippedEvery: 100 });
    const [project, naive] = await startAll(CONTENDERS, path, key, '/v2/store/orders?limit=1');
    const depth = Math.floor((ORDER_COUNT * 0.9) / WALK_LIMIT) * WALK_LIMIT;
    const cursor = await deepCursor(project, key, ORDER_COUNT, depth);
    const walked = await walks(project, naive, key);

    const firstPath = '/v2/store/orders?limit=100';
    const rates = await pageRates(project, naive, key, {
      first: { project: firstPath, naivePages: firstPath },
      deep: { project: `${firstPath}&cursor=${cursor}`, naivePages: `${firstPath}&page=${depth / 100 + 1}` },
      shipped: { project: `${firstPath}&status=shipped`, naivePages: `${firstPath}&status=shipped` },
    });
    project.stop();
    naive.stop();
    reportPages(rates, depth);
    reportWalks(walked);
  },
};
