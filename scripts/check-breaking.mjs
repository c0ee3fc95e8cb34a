// Fails when a contract breaks a client of the latest release of its own major version (scripts/released/)
// without raising info.version's major number. A major version with no release yet has nothing to guard.
// Usage: node scripts/check-breaking.mjs [RELEASED CURRENT]
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { judge } from './breaking-changes.mjs';
import { CONTRACTS } from './contracts.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const releases = `${root}scripts/released/`;
const versionOf = (file) => /^openapi-v(\d+)\.(\d+)\.(\d+)\.yaml$/.exec(file)?.slice(1).map(Number);
const newerFirst = (a, b) => versionOf(b).reduce((order, part, i) => order || part - versionOf(a)[i], 0);
const latestOf = (major) =>
  readdirSync(releases)
    .filter((file) => versionOf(file)?.[0] === major)
    .sort(newerFirst)[0];

/** Compares one pair; true when it may be released. */
function check(releasedPath, currentPath) {
  const released = parse(readFileSync(releasedPath, 'utf8'));
  const current = parse(readFileSync(currentPath, 'utf8'));
  const { ok, findings } = judge(released, current);
  const versions = `${released.info.version} → ${current.info.version}`;
  for (const finding of findings)
    console.error(`breaking (${finding.rule}) ${finding.where}: ${finding.message}`);
  if (!ok) {
    console.error(`${findings.length} breaking change(s) from ${versions} without a new major version.`);
    return false;
  }
  console.log(
    findings.length === 0
      ? `No breaking change from ${versions}.`
      : `${findings.length} breaking change(s) from ${versions}, allowed by the new major version.`,
  );
  return true;
}

const [releasedArg, currentArg] = process.argv.slice(2);
let ok = true;
if (releasedArg && currentArg) {
  ok = check(releasedArg, currentArg);
} else {
  for (const { major, document } of CONTRACTS) {
    const latest = latestOf(major);
    if (latest === undefined) {
      console.log(`${document}: no ${major}.x release yet, so nothing to guard.`);
      continue;
    }
    ok = check(`${releases}${latest}`, `${root}${document}`) && ok;
  }
}
if (!ok) process.exit(1);
