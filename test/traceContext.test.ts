// W3C Trace Context level 1, as the server reads `traceparent`: continued when valid, ignored when any part
// is malformed as the specification lists (never an error), and then a new trace; `tracestate` kept only
// beside a valid one.
import { describe, expect, it } from 'vitest';
import { parseTraceparent, traceContextOf, traceparentOf } from '../src/traceContext.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT = '00f067aa0ba902b7';
const VALID = `00-${TRACE}-${PARENT}-01`;

describe('traceparent', () => {
  it('continues a valid one: its trace id, its span as the parent, its flags', () => {
    expect(parseTraceparent(VALID)).toEqual({ traceId: TRACE, parentSpanId: PARENT, flags: '01' });
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-00`)).toEqual({ traceId: TRACE, parentSpanId: PARENT, flags: '00' });
    // Flags level 1 does not define are passed on as 0; sampled is kept.
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-ff`)?.flags).toBe('01');
    expect(parseTraceparent(`00-${TRACE}-${PARENT}-02`)?.flags).toBe('00');
    // A later version may add fields after a dash: its first four are read.
    expect(parseTraceparent(`cc-${TRACE}-${PARENT}-01-what-comes-next`)).toEqual({ traceId: TRACE, parentSpanId: PARENT, flags: '01' });
  });

  it.each([
    ['the version ff', `ff-${TRACE}-${PARENT}-01`],
    ['a version that is not two hex digits', `0-${TRACE}-${PARENT}-01`],
    ['version 00 with a fifth field', `${VALID}-extra`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT}-01`],
    ['an all-zero parent id', `00-${TRACE}-${'0'.repeat(16)}-01`],
    ['flags that are not two hex digits', `00-${TRACE}-${PARENT}-1`],
    ['flags of other characters', `00-${TRACE}-${PARENT}-0g`],
    ['a trace id too short', `00-${TRACE.slice(1)}-${PARENT}-01`],
    ['a trace id too long', `00-${TRACE}0-${PARENT}-01`],
    ['a parent id too short', `00-${TRACE}-${PARENT.slice(1)}-01`],
    ['upper case', VALID.toUpperCase()],
    ['upper case in the trace id alone', `00-${TRACE.replace('bf', 'BF')}-${PARENT}-01`],
    ['spaces around it', ` ${VALID} `],
    ['another separator', VALID.replaceAll('-', '_')],
    ['nothing', ''],
    ['the field twice', [VALID, VALID]],
  ])('ignores %s', (_, header) => {
    expect(parseTraceparent(header)).toBeUndefined();
  });
});

describe("the request's trace context", () => {
  const counting = () => {
    let n = 0;
    return (bytes: number) => Buffer.alloc(bytes, ++n);
  };

  it('continues the caller\'s trace in a span of its own, keeping tracestate', () => {
    const context = traceContextOf(VALID, 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE', counting());
    expect(context).toEqual({
      traceId: TRACE,
      parentSpanId: PARENT,
      spanId: '0101010101010101',
      flags: '01',
      tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
    });
    expect(traceparentOf(context)).toBe(`00-${TRACE}-0101010101010101-01`);
  });

  it('begins a new trace, sampled, for an invalid or missing traceparent, and drops its tracestate', () => {
    for (const header of ['00-nope', undefined]) {
      const context = traceContextOf(header, 'rojo=1', counting());
      expect(context).toEqual({ traceId: '02'.repeat(16), spanId: '0101010101010101', flags: '01' });
    }
  });

  it('joins a repeated tracestate field, and drops one longer than 512 characters', () => {
    expect(traceContextOf(VALID, ['a=1', 'b=2']).tracestate).toBe('a=1,b=2');
    expect(traceContextOf(VALID, `a=${'x'.repeat(511)}`).tracestate).toBeUndefined();
  });

  it('never makes an all-zero id', () => {
    let calls = 0;
    const zeroFirst = (bytes: number) => Buffer.alloc(bytes, calls++ < 1 ? 0 : 7);
    expect(traceContextOf(undefined, undefined, zeroFirst).spanId).toBe('07'.repeat(8));
  });
});
