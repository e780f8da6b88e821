import { randomBytes } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import { link, open, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { withPath } from '../io/file-system-error.ts';
import { ExperimentError } from './experiment-error.ts';

/**
 * One writer per run folder. Two processes appending to one results.jsonl (a `--resume`
 * started while the run still goes) write every cell twice; so a writer first creates
 * `run.lock` in the folder with the `wx` flag (it fails if the file exists: the check and
 * the creation are one step), holding its pid and host, and removes it when it ends (done,
 * failed, or stopped by SIGINT, SIGTERM or SIGHUP). A lock whose holder died without
 * removing it (SIGKILL, a power cut) is taken over, but only where this machine can see that
 * the holder is gone: same host, and `kill(pid, 0)` answers ESRCH.
 */
export const LOCK_FILE = 'run.lock';

/** What a lock file says of its holder. `token` tells two locks of one pid apart. */
export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
  readonly token: string;
}

export interface RunLock {
  readonly path: string;
  /** Removes the lock (if it is still this one); calling it again does nothing. */
  release(): Promise<void>;
}

/** Locks this process holds, path -> the text it wrote: what the signal and exit handlers remove. */
const held = new Map<string, string>();

/** Takes the lock of `dir` (which must exist) or says in one sentence who holds it. */
export async function lockRun(dir: string): Promise<RunLock> {
  const path = join(dir, LOCK_FILE);
  const mine: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), token: randomBytes(8).toString('hex') };
  const text = `${JSON.stringify(mine)}\n`;
  // A few rounds: another process may take or drop the lock between our steps.
  for (let round = 0; round < 5; round++) {
    if (await create(path, text)) {
      hold(path, text);
      return { path, release: () => release(path, text) };
    }
    const found = await readHolder(path);
    if (found === 'gone') continue;
    if (found === 'damaged') throw new ExperimentError(`${dir} is locked by another memplan, but its ${LOCK_FILE} names no process; remove ${path} if no run is writing there.`);
    if (!goneHere(found.holder)) throw heldError(dir, found.holder);
    await removeStale(path, found.text);
  }
  throw new ExperimentError(`${dir}: its lock (${path}) kept changing hands; other runs are starting there, run again once they are done.`);
}

/**
 * The holder of `dir`'s lock where it may still be running (for readers that must not read a
 * folder half written); undefined where there is no lock, its holder is gone, or it names nobody.
 */
export async function liveHolder(dir: string): Promise<LockHolder | undefined> {
  const found = await readHolder(join(dir, LOCK_FILE));
  if (found === 'gone' || found === 'damaged') return undefined;
  return goneHere(found.holder) ? undefined : found.holder;
}

/** The sentence for a folder another process holds. */
export function heldError(dir: string, holder: LockHolder): ExperimentError {
  const here = holder.host === hostname();
  const advice = here ? 'wait for it to end or stop it' : `this machine cannot tell whether it still runs; remove ${join(dir, LOCK_FILE)} if it does not`;
  return new ExperimentError(`${dir} is being written by memplan pid ${holder.pid}${here ? '' : ` on ${holder.host}`} (since ${holder.started}); ${advice}, then try again.`);
}

/** Creates the lock with `wx`; false where one is there already. A write that fails leaves no lock behind. */
async function create(path: string, text: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw withPath(error, path);
  }
  try {
    await handle.writeFile(text);
    await handle.close();
  } catch (error) {
    // A full disk: the file is ours and empty or cut, and would read as a lock of nobody.
    await handle.close().catch(() => undefined);
    await rm(path, { force: true });
    throw withPath(error, path);
  }
  return true;
}

type Found = 'gone' | 'damaged' | { readonly holder: LockHolder; readonly text: string };

async function readHolder(path: string): Promise<Found> {
  // A lock just created may not hold its text yet: look again for a little while.
  for (let look = 0; ; look++) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      // No lock there, or no folder (a file in its place): nothing holds it.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return 'gone';
      throw withPath(error, path);
    }
    const holder = parseHolder(text);
    if (holder !== undefined) return { holder, text };
    if (look >= 10) return 'damaged';
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function parseHolder(text: string): LockHolder | undefined {
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (Number.isSafeInteger(value.pid) && (value.pid as number) > 0 && typeof value.host === 'string') {
      return { pid: value.pid as number, host: value.host, started: String(value.started ?? 'unknown'), token: String(value.token ?? '') };
    }
  } catch {
    // Empty or cut: the caller looks again or calls it damaged.
  }
  return undefined;
}

/** Whether this machine can see that the holder is no more: same host and no such process. */
function goneHere(holder: LockHolder): boolean {
  if (holder.host !== hostname()) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Removes a dead holder's lock, and only that one: it is moved aside first and compared; if
 * another process replaced it in between (it found the same dead holder and took over
 * first), the live lock goes back where it was.
 */
async function removeStale(path: string, staleText: string): Promise<void> {
  const aside = `${path}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw withPath(error, path);
  }
  const moved = await readFile(aside, 'utf8').catch(() => '');
  if (moved !== staleText) await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
}

async function release(path: string, text: string): Promise<void> {
  if (!held.has(path)) return;
  unhold(path);
  const now = await readFile(path, 'utf8').catch(() => undefined);
  if (now === text) await rm(path, { force: true });
}

/** Removes every lock this process holds, synchronously: all a signal or `exit` handler may do. */
function releaseAllSync(): void {
  for (const [path, text] of held) {
    try {
      if (readFileSync(path, 'utf8') === text) unlinkSync(path);
    } catch {
      // Gone already, or the folder with it: nothing to remove.
    }
  }
  held.clear();
}

const SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

function onSignal(signal: NodeJS.Signals): void {
  releaseAllSync();
  uninstall();
  // Ends the process as the signal would have, with no listener of ours in the way (the
  // shell then reports 130 for Ctrl-C as usual). Where someone else listens too, the end is theirs.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function hold(path: string, text: string): void {
  if (held.size === 0) {
    for (const signal of SIGNALS) process.on(signal, onSignal);
    process.on('exit', releaseAllSync);
  }
  held.set(path, text);
}

function unhold(path: string): void {
  held.delete(path);
  if (held.size === 0) uninstall();
}

function uninstall(): void {
  for (const signal of SIGNALS) process.off(signal, onSignal);
  process.off('exit', releaseAllSync);
}
