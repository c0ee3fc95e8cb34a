// The CLI run in this process, through its command table (src/cli/commandLine.ts), as its main runs it: the
// same code, from source, with standard output and standard error captured line by line. It takes
// milliseconds where a process takes a Node start; each command family keeps a run or more of the real
// process (processes.ts's runCli) for its argv, standard output and exit status.
import { runCommandLine } from '../../src/cli/commandLine.js';

/** What a command line printed, and its exit status, as a process of it would finish. */
export interface CommandRun {
  code: number;
  stdout: string;
  stderr: string;
}

const HELP_FLAGS = ['--help', '-h'];

/**
 * Runs `store-orders <args>` here with `env` over this process's environment, as runCli gives a process
 * both. Every command closes what it opens before it settles; `serve` alone would run a server and take
 * this process's signals, so it is refused here (its help is not).
 */
export async function runCliInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CommandRun> {
  if (args[0] === 'serve' && !args.some((arg) => HELP_FLAGS.includes(arg))) {
    throw new Error('store-orders serve runs a server that takes its process\'s signals: run it as a process (runCli)');
  }
  let stdout = '';
  let stderr = '';
  const code = await runCommandLine(args, {
    env: { ...process.env, ...env },
    out: (line) => {
      stdout += `${line}\n`;
    },
    note: (line) => {
      stderr += `${line}\n`;
    },
  });
  return { code, stdout, stderr };
}
