// The strict-server types: what the contract documents compiles and runs; what it does not, fails `tsc`.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { apiError } from '../../src/contract/errorBody.js';
import type { Handler } from '../../src/operations/handler.js';

describe('handler types derived from generated/', () => {
  it('accept the statuses and bodies the contract documents', async () => {
    const cancel: Handler<'cancelOrder'> = () => ({ status: 204 });
    const conflict: Handler<'cancelOrder'> = () => apiError('order_already_shipped', 'shipped');
    expect(
      cancel(
        { path: { orderId: 1 }, pathText: { orderId: '1' }, query: undefined, body: undefined, headers: undefined },
        {} as never,
      ),
    ).toEqual({ status: 204 });
    expect(
      await conflict(
        { path: { orderId: 1 }, pathText: { orderId: '1' }, query: undefined, body: undefined, headers: undefined },
        {} as never,
      ),
    ).toMatchObject({ status: 409 });
  });

  it('refuse statuses and bodies the contract does not document: each such line fails to compile', () => {
    const fixture = fileURLToPath(new URL('./fixtures/undocumentedResults.ts', import.meta.url));
    const marked = readFileSync(fixture, 'utf8').split('\n');
    const isDirective = (line: string) => line.startsWith('// @ts-expect-error');
    const expectedErrorLines = marked.flatMap((line, i) => (isDirective(line) ? [i + 1] : []));
    expect(expectedErrorLines).toHaveLength(7);
    // The same file without its directives: each line they marked must now be a type error, and only those.
    const bare = marked.map((line) => (isDirective(line) ? '' : line)).join('\n');
    const configPath = fileURLToPath(new URL('../../tsconfig.json', import.meta.url));
    const { config } = ts.readConfigFile(configPath, (path) => ts.sys.readFile(path));
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, dirname(configPath));
    const host = ts.createCompilerHost(options);
    const readFile = host.readFile.bind(host);
    host.readFile = (path) => (resolve(path) === fixture ? bare : readFile(path));
    const program = ts.createProgram([fixture], { ...options, noEmit: true }, host);
    const errorLines = ts
      .getPreEmitDiagnostics(program)
      .filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error)
      .map(({ file, start }) => {
        expect(file && resolve(file.fileName)).toBe(fixture);
        return (file as ts.SourceFile).getLineAndCharacterOfPosition(start ?? 0).line;
      });
    expect([...new Set(errorLines)].sort((a, b) => a - b)).toEqual(expectedErrorLines);
  });
});
