// A running server and a CLI bound to the same database file, as an operator has them.
import { afterEach, beforeEach } from 'vitest';
import { type Finished, runCli } from './processes.js';
import { startServer, type TestServer } from './server.js';

export interface CliFixture {
  server: TestServer;
  cli(...args: string[]): Promise<Finished>;
  /** Runs a command that must succeed and returns its standard output parsed as JSON. */
  cliJson<T = unknown>(...args: string[]): Promise<T>;
  /** Creates a key through the CLI and returns it. */
  newKey(account?: string): Promise<string>;
}

export function useCliFixture(): CliFixture {
  const fixture = {} as CliFixture;
  beforeEach(async () => {
    fixture.server = await startServer();
    fixture.cli = (...args) => runCli(args, { DATABASE_URL: fixture.server.dbPath });
    fixture.cliJson = async <T>(...args: string[]) => {
      const result = await fixture.cli(...args);
      if (result.code !== 0) throw new Error(`store-orders ${args.join(' ')} failed: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    };
    fixture.newKey = async (account = 'acme') => {
      const result = await fixture.cli('keys', 'create', '--account', account);
      if (result.code !== 0) throw new Error(result.stderr);
      return result.stdout.trim().split('\n').at(-1) as string;
    };
  });
  afterEach(() => fixture.server.close());
  return fixture;
}
