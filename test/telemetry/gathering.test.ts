// The primary's sum of its workers' metrics, on its own: workers here are stand-ins that answer as the
// test says (test/workers.test.ts runs the real processes). Counters and histograms add up; process
// metrics stay each worker's, labelled by its slot; a worker that leaves is carried over, so no counter
// goes back; one that does not answer is counted by its last answer.
import { describe, expect, it } from 'vitest';
import { type GatheredWorker, MetricsGathering } from '../../src/telemetry/gathering.js';
import { FamilySum } from '../../src/telemetry/familySum.js';
import type { MetricFamily, MetricsGathered, SnapshotWanted } from '../../src/workerMessages.js';

const requests = (...counts: [string, number][]): MetricFamily => ({
  name: 'store_orders_http_requests_total',
  help: 'HTTP requests answered.',
  type: 'counter',
  values: counts.map(([status, value]) => ({ labels: { status }, value })),
});

const memory = (bytes: number): MetricFamily => ({
  name: 'process_resident_memory_bytes',
  help: 'Resident memory size in bytes.',
  type: 'gauge',
  values: [{ labels: {}, value: bytes }],
});

/** A worker that answers each ask with what `answer` gives, or never when it gives nothing. */
class StandIn implements GatheredWorker {
  connected = true;
  asked = 0;
  answer: (() => { service: MetricFamily[]; process: MetricFamily[] } | undefined) | undefined;
  gathered: MetricsGathered[] = [];

  constructor(readonly gathering: MetricsGathering) {}

  isConnected(): boolean {
    return this.connected;
  }

  send(message: SnapshotWanted | MetricsGathered, callback: (error: Error | null) => void): boolean {
    if (!this.connected) {
      queueMicrotask(() => callback(new Error('channel closed')));
      return false;
    }
    callback(null);
    if ('metricsGathered' in message) this.gathered.push(message);
    else {
      this.asked += 1;
      const own = this.answer?.();
      if (own) queueMicrotask(() => this.gathering.heard(this, { snapshot: message.snapshotWanted, ...own }));
    }
    return true;
  }
}

function valuesOf(families: MetricFamily[], name: string) {
  return families.find((family) => family.name === name)?.values.map(({ labels, value }) => ({ labels, value }));
}

describe('MetricsGathering', () => {
  it('adds up the workers’ counters series by series, and shows each one’s process metrics under its slot', async () => {
    const gathering = new MetricsGathering();
    const [one, two] = [new StandIn(gathering), new StandIn(gathering)];
    one.answer = () => ({ service: [requests(['200', 3], ['404', 1])], process: [memory(100)] });
    two.answer = () => ({ service: [requests(['200', 5], ['429', 2])], process: [memory(200)] });
    gathering.joined(one, 1);
    gathering.joined(two, 2);
    const { service, process } = await gathering.gather();
    expect(valuesOf(service, 'store_orders_http_requests_total')).toEqual([
      { labels: { status: '200' }, value: 8 },
      { labels: { status: '404' }, value: 1 },
      { labels: { status: '429' }, value: 2 },
    ]);
    expect(valuesOf(process, 'process_resident_memory_bytes')).toEqual([
      { labels: { worker: '1' }, value: 100 },
      { labels: { worker: '2' }, value: 200 },
    ]);
  });

  it('answers the worker that asked, with the same sum', async () => {
    const gathering = new MetricsGathering();
    const one = new StandIn(gathering);
    one.answer = () => ({ service: [requests(['200', 4])], process: [] });
    gathering.joined(one, 1);
    expect(gathering.heard(one, { metricsWanted: 7 })).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(one.gathered).toEqual([
      { metricsGathered: 7, service: [requests(['200', 4])], process: [] },
    ]);
    expect(gathering.heard(one, 'store-orders:listening')).toBe(false);
  });

  it('carries over the last counts of a worker that exits: its replacement starts at 0 and no counter goes back', async () => {
    const gathering = new MetricsGathering();
    const [one, two] = [new StandIn(gathering), new StandIn(gathering)];
    one.answer = () => ({ service: [requests(['200', 10])], process: [memory(100)] });
    two.answer = () => ({ service: [requests(['200', 5])], process: [memory(200)] });
    gathering.joined(one, 1);
    gathering.joined(two, 2);
    expect(valuesOf((await gathering.gather()).service, 'store_orders_http_requests_total')).toEqual([
      { labels: { status: '200' }, value: 15 },
    ]);

    one.connected = false;
    gathering.left(one);
    // Its answer that comes after it left is not counted again.
    gathering.heard(one, { snapshot: 99, service: [requests(['200', 11])], process: [] });
    const replacement = new StandIn(gathering);
    replacement.answer = () => ({ service: [requests(['200', 1], ['404', 1])], process: [memory(50)] });
    gathering.joined(replacement, 1);
    const after = await gathering.gather();
    expect(valuesOf(after.service, 'store_orders_http_requests_total')).toEqual([
      { labels: { status: '200' }, value: 16 },
      { labels: { status: '404' }, value: 1 },
    ]);
    // The process metrics are the live processes' only.
    expect(valuesOf(after.process, 'process_resident_memory_bytes')).toEqual([
      { labels: { worker: '2' }, value: 200 },
      { labels: { worker: '1' }, value: 50 },
    ]);
  });

  it('counts a worker that does not answer in time by its last answer, and one it cannot ask not at all', async () => {
    const gathering = new MetricsGathering({ waitMs: 20 });
    const [stuck, gone] = [new StandIn(gathering), new StandIn(gathering)];
    let answering = true;
    stuck.answer = () => (answering ? { service: [requests(['200', 2])], process: [] } : undefined);
    gathering.joined(stuck, 1);
    await gathering.gather();
    answering = false;
    gone.connected = false;
    gathering.joined(gone, 2);
    const { service } = await gathering.gather();
    expect(stuck.asked).toBe(2);
    expect(gone.asked).toBe(0);
    expect(valuesOf(service, 'store_orders_http_requests_total')).toEqual([{ labels: { status: '200' }, value: 2 }]);
  });

  it('stops waiting for a worker as soon as it exits', async () => {
    // A wait far beyond the test's own time-out: only the exit can end it.
    const gathering = new MetricsGathering({ waitMs: 3_600_000 });
    const silent = new StandIn(gathering);
    gathering.joined(silent, 1);
    const gathered = gathering.gather();
    gathering.left(silent);
    expect((await gathered).service).toEqual([]);
  });
});

describe('FamilySum', () => {
  it('adds histogram samples by name and labels, whatever the labels’ order', () => {
    const histogram = (value: number, order: 'le-first' | 'le-last'): MetricFamily => ({
      name: 'h',
      help: 'A histogram.',
      type: 'histogram',
      values: [
        { metricName: 'h_bucket', labels: order === 'le-first' ? { le: 0.1, op: 'a' } : { op: 'a', le: 0.1 }, value },
        { metricName: 'h_count', labels: { op: 'a' }, value },
      ],
    });
    const sum = new FamilySum().add([histogram(2, 'le-first')]).add([histogram(3, 'le-last')]);
    expect(sum.families()[0]?.values.map(({ metricName, value }) => [metricName, value])).toEqual([
      ['h_bucket', 5],
      ['h_count', 5],
    ]);
    // A copy goes on alone.
    const copy = sum.copy().add([histogram(1, 'le-first')]);
    expect(copy.families()[0]?.values[0]?.value).toBe(6);
    expect(sum.families()[0]?.values[0]?.value).toBe(5);
  });
});
