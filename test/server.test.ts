import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rawRequest } from './support/http.js';
import { runCliInProcess } from './support/commandLine.js';
import { CLI_ENTRY, spawnServer, untilLogged } from './support/processes.js';

let folder: string;
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'store-orders-process-'));
});
afterEach(() => rmSync(folder, { recursive: true, force: true }));

describe('the server process', () => {
  it('refuses to start on a missing database file, naming it and `store-orders init`', async () => {
    const refused = spawnServer({ DATABASE_URL: '' }, { cwd: folder, init: false });
    await expect(refused).rejects.toThrow(/exited with 1/);
    await expect(refused).rejects.toThrow(
      /data\/store\.db does not exist; create it with `store-orders init`/,
    );
    expect(existsSync(join(folder, 'data'))).toBe(false);
  });

  it('serves the default database under its working directory once `store-orders init` made it', async () => {
    const server = await spawnServer({ DATABASE_URL: '' }, { cwd: folder });
    try {
      expect((await rawRequest(`${server.baseUrl}/readyz`)).json).toEqual({ status: 'ready' });
      expect(existsSync(join(folder, 'data', 'store.db'))).toBe(true);
    } finally {
      server.child.kill('SIGTERM');
      await server.finished;
    }
  });

  it('starts the same way through `store-orders serve`', async () => {
    const server = await spawnServer(
      { DATABASE_URL: join(folder, 'cli.db') },
      { entry: [CLI_ENTRY, 'serve'] },
    );
    expect((await rawRequest(`${server.baseUrl}/healthz`)).status).toBe(200);
    server.child.kill('SIGINT');
    expect((await server.finished).code).toBe(0);
  });

  it.each([
    [{ PORT: 'eighty' }, /PORT must be a whole number/],
    [{ DATABASE_URL: 'mysql://db/store' }, /DATABASE_URL must be a SQLite file path/],
    [{ LOG_LEVEL: 'chatty' }, /LOG_LEVEL must be one of/],
    [{ SQLITE_SYNCHRONOUS: 'OFF' }, /SQLITE_SYNCHRONOUS must be one of/],
  ])('refuses bad configuration %o with a clear message and exit 1', async (env, message) => {
    const refused = spawnServer(env, { init: false });
    await expect(refused).rejects.toThrow(message);
    await expect(refused).rejects.toThrow(/exited with 1/);
  });

  it('refuses a database path it cannot open', async () => {
    mkdirSync(join(folder, 'a-folder.db'));
    await expect(spawnServer({ DATABASE_URL: join(folder, 'a-folder.db') }, { init: false })).rejects.toThrow(
      /cannot open database/,
    );
  });

  it('on SIGTERM finishes the request in flight, then exits 0', async () => {
    const dbPath = join(folder, 'store.db');
    // At debug, the server logs each request as it arrives: the test signals once it has this one.
    const server = await spawnServer({ DATABASE_URL: dbPath, LOG_LEVEL: 'debug' });
    const key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], { DATABASE_URL: dbPath })).stdout
      .trim()
      .split('\n')
      .at(-1);

    // A request whose body is still arriving when the signal comes.
    const { port } = new URL(server.baseUrl);
    const answer = new Promise<{ status: number; body: string; connection: string | undefined }>(
      (resolve, reject) => {
        const slow = request(
          {
            port,
            host: '127.0.0.1',
            method: 'POST',
            path: '/v1/messages',
            headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          },
          (response) => {
            let body = '';
            response.on('data', (chunk) => {
              body += String(chunk);
            });
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, body, connection: response.headers.connection }),
            );
          },
        );
        slow.on('error', reject);
        slow.write('{"message":');
        // The signal once the server has the request, and the rest of the body once it is stopping: read
        // from its log, so that the order holds however slow the machine.
        void untilLogged(server, '"incoming request"')
          .then(() => server.child.kill('SIGTERM'))
          .then(() => untilLogged(server, '"stopping: no new connections'))
          .then(() => slow.end('"sent during shutdown"}'), reject);
      },
    );

    const { status, body, connection } = await answer;
    expect(status).toBe(202);
    expect(JSON.parse(body)).toMatchObject({ message: 'sent during shutdown', status: 'queued' });
    const finished = await server.finished;
    expect(finished.code).toBe(0);
    // The answer closes its connection rather than leave it to hold the stop open until keep-alive runs out.
    expect(connection).toBe('close');
    expect(finished.stdout).toContain('stopped');
    const messages = await runCliInProcess(['messages', 'list'], { DATABASE_URL: dbPath });
    expect(JSON.parse(messages.stdout)).toHaveLength(1);
  });

  it('logs JSON lines with the request id and without the key', async () => {
    const dbPath = join(folder, 'store.db');
    await runCliInProcess(['init'], { DATABASE_URL: dbPath });
    const key = (await runCliInProcess(['keys', 'create', '--account', 'acme'], { DATABASE_URL: dbPath })).stdout
      .trim()
      .split('\n')
      .at(-1) as string;
    // At debug, so that the request's own lines are two: as it arrives, and as it is answered.
    const server = await spawnServer({ DATABASE_URL: dbPath, LOG_LEVEL: 'debug' });
    const response = await rawRequest(`${server.baseUrl}/v1/store/orders`, {
      headers: { Authorization: `Bearer ${key}`, 'X-Request-Id': 'trace-42' },
    });
    expect(response.status).toBe(200);
    server.child.kill('SIGTERM');
    const { stdout } = await server.finished;
    const lines = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.reqId === 'trace-42').length).toBeGreaterThanOrEqual(2);
    expect(stdout).not.toContain(key);
  });
});
