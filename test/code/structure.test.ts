// The shape the code keeps so that it stays easy to read and change: small files and functions, and
// imports that run one way, http → operations → store, with contract/ and config.ts beneath them all.
// Beside http/ (the API's listener and the operations' pipeline), telemetry/ and docs/ serve routes of
// their own through the kit every route uses, serving/, and none of the three imports another.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

const files = (readdirSync(SRC, { recursive: true }) as string[])
  .filter((name) => name.endsWith('.ts'))
  .map((name) => name.replaceAll('\\', '/'));

function parsed(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(join(SRC, file), 'utf8'), ts.ScriptTarget.Latest, true);
}

/** The files of src/ that `file` imports or re-exports, relative to src/. */
function importsOf(file: string): string[] {
  return parsed(file)
    .statements.flatMap((statement) =>
      (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier
        ? [statement.moduleSpecifier]
        : [],
    )
    .map((specifier) => (specifier as ts.StringLiteral).text)
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => relative(SRC, resolve(dirname(join(SRC, file)), specifier)).replace(/\.js$/, '.ts'))
    .filter((target) => !target.startsWith('..'));
}

const layer = (file: string) => file.split('/')[0] as string;

describe('the source tree', () => {
  it('has no file over 250 lines', () => {
    const long = files.filter((file) => readFileSync(join(SRC, file), 'utf8').split('\n').length > 251);
    expect(long).toEqual([]);
  });

  it('has no function over 60 lines', () => {
    const long: string[] = [];
    for (const file of files) {
      const source = parsed(file);
      const visit = (node: ts.Node) => {
        if (ts.isFunctionLike(node) && 'body' in node && node.body) {
          const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
          const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
          if (end - start + 1 > 60) long.push(`${file}:${start + 1} (${end - start + 1} lines)`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(long).toEqual([]);
  });

  it('imports one way: http → operations → store; http, telemetry and docs → serving; delivery → store; contract/ and config.ts beneath all', () => {
    const wrong: string[] = [];
    // exit.ts (how the process reads its configuration at start) and workerMessages.ts (what the primary and
    // its workers tell each other) sit by what they import: exit.ts above config, store and delivery, below
    // the process's own files; workerMessages.ts above the store alone.
    const aboveAll = ['http', 'serving', 'operations', 'telemetry', 'docs', 'cli', 'app.ts', 'server.ts', 'exit.ts'];
    const forbidden: Record<string, string[]> = {
      contract: [...aboveAll, 'store', 'delivery', 'config.ts', 'workerMessages.ts'],
      'config.ts': [...aboveAll, 'store', 'delivery', 'contract', 'workerMessages.ts'],
      store: [...aboveAll, 'delivery', 'config.ts', 'workerMessages.ts'],
      'workerMessages.ts': [...aboveAll, 'delivery', 'config.ts'],
      operations: [...aboveAll.filter((name) => name !== 'operations'), 'delivery'],
      serving: [...aboveAll.filter((name) => name !== 'serving'), 'delivery'],
      http: ['telemetry', 'docs', 'cli', 'delivery', 'app.ts', 'server.ts', 'exit.ts'],
      telemetry: ['http', 'operations', 'docs', 'cli', 'app.ts', 'server.ts', 'exit.ts'],
      docs: [...aboveAll.filter((name) => name !== 'docs' && name !== 'serving'), 'delivery'],
      // Beside the API, on the store: it serves nothing, and tells the telemetry what it did through an observer.
      delivery: [...aboveAll, 'workerMessages.ts'],
      'exit.ts': [...aboveAll.filter((name) => name !== 'exit.ts'), 'workerMessages.ts'],
    };
    for (const file of files) {
      for (const target of importsOf(file)) {
        if (forbidden[layer(file)]?.includes(layer(target))) wrong.push(`${file} → ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no circle in its imports, type-only ones included', () => {
    const graph = new Map(files.map((file) => [file, importsOf(file)]));
    const circles: string[] = [];
    const done = new Set<string>();
    const visit = (file: string, path: string[]) => {
      const seen = path.indexOf(file);
      if (seen !== -1) return void circles.push([...path.slice(seen), file].join(' → '));
      if (done.has(file)) return;
      for (const target of graph.get(file) ?? []) visit(target, [...path, file]);
      done.add(file);
    };
    for (const file of files) visit(file, []);
    expect(circles).toEqual([]);
  });

  it("loads OpenTelemetry's SDK only when spans are exported: every import of it at load time is of types alone", () => {
    const loaded = files.flatMap((file) =>
      parsed(file)
        .statements.filter(
          (statement) =>
            ts.isImportDeclaration(statement) &&
            (statement.moduleSpecifier as ts.StringLiteral).text.startsWith('@opentelemetry/') &&
            !statement.importClause?.isTypeOnly,
        )
        .map((statement) => `${file}: ${statement.getText()}`),
    );
    expect(loaded).toEqual([]);
    // The one place that loads it, with import(), when asked to export.
    const dynamic = files.filter((file) => readFileSync(join(SRC, file), 'utf8').includes("import('@opentelemetry/"));
    expect(dynamic).toEqual(['telemetry/spanExport.ts']);
  });

  it('keeps each backend to itself: store/sqlite and store/postgres import nothing of each other', () => {
    const backendOf = (file: string) => /^store\/(sqlite|postgres)\//.exec(file)?.[1];
    const crossing = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => backendOf(file) && backendOf(target) && backendOf(file) !== backendOf(target))
        .map((target) => `${file} → ${target}`),
    );
    expect(crossing).toEqual([]);
  });
});

describe('the repository', () => {
  // The layout every checkout, the package and the docs rely on: nothing else at the top but dotfiles.
  const LAYOUT = [
    'openapi.yaml',
    'openapi.v2.yaml',
    'package.json',
    'package-lock.json',
    'tsconfig.json',
    'tsconfig.build.json',
    'eslint.config.js',
    'vitest.config.ts',
    'redocly.yaml',
    'README.md',
    'CHANGELOG.md',
    'SECURITY.md',
    'LICENSE',
    'src',
    'generated',
    'scripts',
    'test',
    'docs',
    'bench',
  ];
  // What a build, an install or a test run leaves in a checkout, which git ignores.
  const MADE_HERE = ['node_modules', 'dist', 'data', 'coverage', 'test-artifacts'];

  it('keeps its fixed top-level layout', () => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    const extra = readdirSync(root).filter(
      (name) => !name.startsWith('.') && !LAYOUT.includes(name) && !MADE_HERE.includes(name),
    );
    expect(extra).toEqual([]);
  });
});
