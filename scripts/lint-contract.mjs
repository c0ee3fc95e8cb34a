// Lints each contract, and its OpenAPI 3.1 rendition (generated/, by `npm run generate`), with Spectral
// (spectral:oas) and Redocly (recommended); any error or warning fails.
// Redocly exits 0 on warnings, so its JSON report is counted here instead of trusting the exit code.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CONTRACTS } from './contracts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const run = (name, args) => spawnSync(bin(name), args, { cwd: root, encoding: 'utf8' });

let clean = true;
for (const document of CONTRACTS.flatMap(({ document, rendition }) => [document, rendition])) {
  console.log(`${document}:`);
  const spectral = run('spectral', ['lint', document, '--ruleset', '.spectral.yaml', '--fail-severity', 'hint']);
  process.stdout.write(spectral.stdout);
  const spectralClean = spectral.status === 0;

  const redocly = run('redocly', ['lint', document, '--format', 'json']);
  let redoclyClean = false;
  try {
    const report = JSON.parse(redocly.stdout);
    const { errors, warnings } = report.totals;
    redoclyClean = errors === 0 && warnings === 0;
    for (const problem of report.problems) {
      console.log(
        `redocly ${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location?.[0]?.pointer}`,
      );
    }
    console.log(`redocly: ${errors} errors, ${warnings} warnings`);
  } catch {
    console.log(redocly.stdout, redocly.stderr);
  }
  if (!spectralClean || !redoclyClean) {
    console.error(
      `${document} is not lint-clean (Spectral spectral:oas and Redocly recommended must both report nothing).`,
    );
    clean = false;
  }
}
if (!clean) process.exit(1);
