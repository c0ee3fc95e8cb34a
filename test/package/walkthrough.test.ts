// The README's walkthrough, run as a user runs it: its shell commands, in order, in one shell, against a
// fresh server delivering to the walkthrough's receiver, each shown output (the receiver's terminal too)
// compared with what really comes out.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, type ServerProcess, spawnServer } from '../support/processes.js';
import { until } from '../support/receiver.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const README_ADDRESS = 'http://127.0.0.1:3000';
const README_RECEIVER_ORIGIN = 'http://127.0.0.1:4000';

interface Step {
  commands: string;
  shown: string | undefined;
}

/** The walkthrough's steps: each `sh` block, with the `text` or `json` block after it, if any. */
export function walkthroughSteps(readme: string): Step[] {
  const start = readme.indexOf('\n## Walkthrough');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end === -1 ? undefined : end);
  const steps: Step[] = [];
  for (const [, language, body] of section.matchAll(/```(\w+)\n([\s\S]*?)```/g)) {
    if (language === 'sh') steps.push({ commands: body ?? '', shown: undefined });
    else if (steps.length > 0 && steps.at(-1)?.shown === undefined) steps.at(-1)!.shown = body ?? '';
    else throw new Error(`a ${language} block in the walkthrough follows no command`);
  }
  return steps;
}

/** What varies from run to run and machine to machine: ids, keys, times, request ids, ETags, quotas. */
export function normalised(output: string): string {
  return (
    output
      .replaceAll('\r\n', '\n')
      // curl -i ends a body without a newline, so the next answer's status line follows on the same line.
      .replace(/(?<=\S)(HTTP\/1\.1 \d{3})/g, '\n\n$1')
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<request-id>')
      .replace(/sok_[0-9A-Za-z]{39}/g, '<key>')
      .replace(/sok_[0-9A-Za-z]{3}…/g, '<key-prefix>')
      .replace(/msg_[0-9A-Za-z]+/g, '<message-id>')
      .replace(/we_[0-9A-Za-z]{22}/g, '<endpoint-id>')
      .replace(/evt_[0-9a-f]{22}/g, '<event-id>')
      .replace(/whsec_[A-Za-z0-9+/]+=*/g, '<secret>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
      .replace(/^date: .*$/gim, 'date: <date>')
      .replace(/^etag: .*$/gim, 'etag: <etag>')
      // The quota's window may roll over between two steps.
      .replace(/;r=\d+;t=\d+/g, ';r=<left>;t=<seconds>')
      .split('\n')
      .map((line) => line.trimEnd())
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** What the walkthrough shows of the receiver's terminal: its `text receiver` blocks, one after another. */
export function receiverShown(readme: string): string {
  return [...readme.matchAll(/```text receiver\n([\s\S]*?)```/g)].map(([, body]) => body).join('');
}

/** The secret the walkthrough exports for the receiver and the server. */
function readmeSecret(readme: string): string {
  const secret = /export MESSAGE_WEBHOOK_SECRET=(whsec_\S+)/.exec(readme)?.[1];
  if (secret === undefined) throw new Error('the walkthrough exports no MESSAGE_WEBHOOK_SECRET');
  return secret;
}

/** The values the walkthrough exports for the server's terminal, of the variables `names`. */
function readmeExports(readme: string, names: string[]): Record<string, string> {
  const line = /^ *export (WEBHOOK_\S+=\S+(?: \w+=\S+)*)/m.exec(readme)?.[1] ?? '';
  const values = Object.fromEntries(line.split(' ').map((pair) => pair.split('=') as [string, string]));
  for (const name of names) if (values[name] === undefined) throw new Error(`the walkthrough exports no ${name}`);
  return values;
}

/** A shown line that is only this stands for one or more lines left out (headers, mostly). */
const CUT = '…';

/** The shown output as a pattern in which each cut matches one or more whole lines. */
export function cutPattern(shown: string): RegExp {
  const escape = (line: string) => line.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lines = shown.split('\n').map((line) => (line === CUT ? '(?:[^\\n]*\\n)+?' : `${escape(line)}\\n`));
  return new RegExp(`^${lines.join('')}$`);
}

describe("the README's walkthrough", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const steps = walkthroughSteps(readme);
  let folder: string;
  let server: ServerProcess;
  let outputs: string[];
  const receiver = { url: '', origin: '', output: '', stop: () => {} };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'walkthrough-'));
    // The receiver and the server as the walkthrough starts them, with its secret; on a port that is free.
    const secret = readmeSecret(readme);
    const port = await freePort();
    const child = spawn(process.execPath, ['scripts/webhook-receiver.mjs'], {
      cwd: root,
      env: { ...process.env, MESSAGE_WEBHOOK_SECRET: secret, RECEIVER_PORT: String(port) },
    });
    child.stdout.on('data', (chunk) => (receiver.output += String(chunk)));
    receiver.stop = () => child.kill('SIGTERM');
    receiver.origin = `http://127.0.0.1:${port}`;
    receiver.url = `${receiver.origin}/hooks`;
    await until(() => receiver.output.includes('receiving at'));
    // The defaults, as `npm start` runs: rate limits on, at their documented values.
    const env = { DATABASE_URL: join(folder, 'store.db'), RATE_LIMIT_REQUESTS: '', RATE_LIMIT_AUTH_FAILURES: '' };
    const delivery = {
      MESSAGE_WEBHOOK_SECRET: secret,
      MESSAGE_WEBHOOK_URL: receiver.url,
      ...readmeExports(readme, ['WEBHOOK_ALLOW_HTTP', 'WEBHOOK_ALLOWED_NETWORKS']),
    };
    server = await spawnServer({ ...env, ...delivery, LOG_LEVEL: 'info' });
    const marker = (index: number) => `@@step ${index}@@`;
    const script = steps
      .map((step, index) => `echo '${marker(index)}'\n${step.commands.replaceAll(README_ADDRESS, server.baseUrl).replaceAll(README_RECEIVER_ORIGIN, receiver.origin)}`)
      .join('\n');
    // One shell for the whole walkthrough, as in a terminal: `export KEY=…` holds for the later steps.
    const { stdout } = await promisify(execFile)('bash', ['-c', `exec 2>&1\n${script}`], {
      cwd: root,
      env: { ...process.env, ...env },
    });
    outputs = stdout
      .split(/@@step \d+@@\n/)
      .slice(1)
      // npm's own warnings about this machine's npm settings are not the project's output.
      .map((output) => output.replace(/^npm warn .*\n/gm, ''));
    // A hang guard: six `npx store-orders` starts, each up to 10 s or more on a busy 2-core machine, and a
    // dozen requests.
  }, 600_000);

  afterAll(async () => {
    // The walkthrough saves the endpoint's answer where the receiver reads it: in the checkout.
    rmSync(join(root, 'endpoint.json'), { force: true });
    server?.child.kill('SIGTERM');
    await server?.finished;
    receiver.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('has commands to run, most with their output shown', () => {
    expect(steps.length).toBeGreaterThan(5);
    expect(outputs).toHaveLength(steps.length);
  });

  it("shows what the receiver's terminal prints", async () => {
    const shown = normalised(receiverShown(readme));
    // A delivery may still be on its way when the last step ends.
    const received = (text: string) => text.split('\n').filter((line) => line.startsWith('received')).length;
    await until(() => received(receiver.output) >= received(shown));
    expect(shown).toContain('signature verified');
    expect(normalised(receiver.output.replaceAll(receiver.origin, README_RECEIVER_ORIGIN))).toBe(shown);
  });

  it.each(steps.map((step, index) => [index, step] as const))(
    'step %i shows what its commands print',
    (index, step) => {
      const actual = normalised((outputs[index] ?? '').replaceAll(receiver.origin, README_RECEIVER_ORIGIN));
      const shown = normalised(step.shown ?? '');
      if (shown.split('\n').includes(CUT)) expect(`${actual}\n`).toMatch(cutPattern(shown));
      else expect(actual).toBe(shown);
    },
  );
});
