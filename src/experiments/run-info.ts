import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { arch, cpus, platform, release, totalmem } from 'node:os';

/** Where and with what a run happened: `run.json` carries it beside the results. */
export interface RunInfo {
  readonly date: string;
  readonly gitCommit: string;
  readonly versions: Record<string, string>;
  readonly machine: { readonly cpu: string; readonly cores: number; readonly memoryBytes: number; readonly os: string };
}

export function collectRunInfo(): RunInfo {
  let gitCommit = 'unknown';
  try {
    gitCommit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (dirty !== '') gitCommit += ' (with uncommitted changes)';
  } catch {
    // Not a git checkout (an installed package): the version says enough.
  }
  const own = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
  return {
    date: new Date().toISOString(),
    gitCommit,
    versions: { 'memplan-bench': own.version, node: process.version, v8: process.versions.v8 },
    machine: { cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, memoryBytes: totalmem(), os: `${platform()} ${release()} ${arch()}` },
  };
}
