// Fails when openapi.yaml breaks a client of the latest released contract (scripts/released/) without
// raising info.version's major number. Usage: node scripts/check-breaking.mjs [RELEASED CURRENT]
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { judge } from './breaking-changes.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const releases = `${root}scripts/released/`;
const versionOf = (file) => /^openapi-v(\d+)\.(\d+)\.(\d+)\.yaml$/.exec(file)?.slice(1).map(Number);
const newerFirst = (a, b) => versionOf(b).reduce((order, part, i) => order || part - versionOf(a)[i], 0);
const latest = readdirSync(releases).filter(versionOf).sort(newerFirst)[0];
const [releasedPath = `${releases}${latest}`, currentPath = `${root}openapi.yaml`] = process.argv.slice(2);
const released = parse(readFileSync(releasedPath, 'utf8'));
const current = parse(readFileSync(currentPath, 'utf8'));
const { ok, findings } = judge(released, current);

const versions = `${released.info.version} → ${current.info.version}`;
for (const finding of findings)
  console.error(`breaking (${finding.rule}) ${finding.where}: ${finding.message}`);
if (!ok) {
  console.error(`${findings.length} breaking change(s) from ${versions} without a new major version.`);
  process.exit(1);
}
console.log(
  findings.length === 0
    ? `No breaking change from ${versions}.`
    : `${findings.length} breaking change(s) from ${versions}, allowed by the new major version.`,
);
