// A running server and a CLI bound to the same database, as an operator has them. The CLI runs in this
// process (commandLine.ts); `cliProcess` runs it as the real process, for a family's run of its argv,
// standard output and exit status.
import { afterEach, beforeEach } from 'vitest';
import { databaseUrl } from '../../src/store/backends.js';
import { type CommandRun, runCliInProcess } from './commandLine.js';
import { type Finished, runCli } from './processes.js';
import { startServer, type TestServer } from './server.js';

export interface CliFixture {
  server: TestServer;
  /** `store-orders <args>` on the server's database, in this process. */
  cli(...args: string[]): Promise<CommandRun>;
  /** `store-orders <args>` on the server's database, as a process of its own (`node dist/cli/main.js`). */
  cliProcess(...args: string[]): Promise<Finished>;
  /** Runs a command that must succeed and returns its standard output parsed as JSON. */
  cliJson<T = unknown>(...args: string[]): Promise<T>;
  /** Creates a key through the CLI and returns it. */
  newKey(account?: string): Promise<string>;
}

export function useCliFixture(): CliFixture {
  const fixture = {} as CliFixture;
  beforeEach(async () => {
    fixture.server = await startServer();
    const env = { DATABASE_URL: databaseUrl(fixture.server.database) };
    fixture.cli = (...args) => runCliInProcess(args, env);
    fixture.cliProcess = (...args) => runCli(args, env);
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
