import { readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(new URL('package-lock.json', root), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: unknown }>;
};
const claimed = pkg.engines.node;

/** The Node.js lines .ci/run tests, from its `NODE_MAJORS=(…)` line. */
function testedMajors(): number[] {
  const ci = readFileSync(new URL('.ci/run', root), 'utf8');
  const line = /^NODE_MAJORS=\(([0-9 ]+)\)$/m.exec(ci);
  if (!line?.[1]) throw new Error('.ci/run has no NODE_MAJORS=(…) line');
  return line[1].trim().split(/ +/).map(Number);
}

/** The majors engines admits any version of, looking well past the newest tested one. */
function claimedMajors(): number[] {
  const newest = Math.max(...testedMajors());
  return Array.from({ length: newest + 20 }, (_, major) => major).filter((major) =>
    semver.intersects(claimed, `>=${major}.0.0 <${major + 1}.0.0-0`),
  );
}

describe('package.json engines', () => {
  it('is a valid range that the Node running these tests satisfies', () => {
    expect(semver.validRange(claimed)).not.toBeNull();
    expect(
      semver.satisfies(process.versions.node, claimed),
      `Node ${process.versions.node} vs "${claimed}"`,
    ).toBe(true);
  });

  it('claims exactly the Node.js lines .ci/run tests: no untested line, no tested line left out', () => {
    expect(claimedMajors()).toEqual([...testedMajors()].sort((a, b) => a - b));
  });

  it('types the code with the oldest line\'s @types/node, so that an API that line lacks does not compile', () => {
    expect(semver.minVersion(pkg.devDependencies['@types/node'] ?? '')?.major).toBe(Math.min(...testedMajors()));
  });

  it('claims nothing that a locked dependency refuses in its own engines (npm ci warns EBADENGINE on none)', () => {
    const refusing: string[] = [];
    for (const [path, { version, engines }] of Object.entries(lock.packages)) {
      const range = (engines as { node?: unknown } | undefined)?.node;
      if (path === '' || typeof range !== 'string') continue;
      if (!semver.validRange(range) || !semver.subset(claimed, range)) {
        refusing.push(`${path.replace(/^.*node_modules\//, '')}@${version} needs node ${range}`);
      }
    }
    expect(refusing).toEqual([]);
  });
});
