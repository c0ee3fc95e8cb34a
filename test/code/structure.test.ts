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

/** The files of src/ that `file` imports, relative to src/. */
function importsOf(file: string): string[] {
  return parsed(file)
    .statements.filter(ts.isImportDeclaration)
    .map((statement) => (statement.moduleSpecifier as ts.StringLiteral).text)
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
    const forbidden: Record<string, string[]> = {
      contract: ['http', 'serving', 'operations', 'store', 'telemetry', 'docs', 'cli', 'delivery', 'config.ts', 'app.ts', 'server.ts'],
      'config.ts': ['http', 'serving', 'operations', 'store', 'telemetry', 'docs', 'cli', 'delivery', 'contract', 'app.ts', 'server.ts'],
      store: ['http', 'serving', 'operations', 'telemetry', 'docs', 'cli', 'delivery', 'config.ts', 'app.ts', 'server.ts'],
      operations: ['http', 'serving', 'telemetry', 'docs', 'cli', 'delivery', 'app.ts', 'server.ts'],
      serving: ['http', 'operations', 'telemetry', 'docs', 'cli', 'delivery', 'app.ts', 'server.ts'],
      http: ['telemetry', 'docs', 'cli', 'delivery', 'app.ts', 'server.ts'],
      telemetry: ['http', 'operations', 'docs', 'cli', 'app.ts', 'server.ts'],
      docs: ['http', 'operations', 'telemetry', 'cli', 'delivery', 'app.ts', 'server.ts'],
      // Beside the API, on the store: it serves nothing, and tells the telemetry what it did through an observer.
      delivery: ['http', 'serving', 'operations', 'telemetry', 'docs', 'cli', 'app.ts', 'server.ts'],
    };
    for (const file of files) {
      for (const target of importsOf(file)) {
        if (forbidden[layer(file)]?.includes(layer(target))) wrong.push(`${file} → ${target}`);
      }
    }
    expect(wrong).toEqual([]);
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
