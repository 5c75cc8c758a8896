// Who owns a data folder: the embedded database in DATA_DIR belongs to one process at a time, recorded in a
// lock file (its pid and start time) that a crashed owner cannot leave stuck, since a dead pid frees it.
// The folder and everything in it is made owner-only, so no other local user can read or reach the database.
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'loupe.lock';
/** The embedded database's Unix socket, inside the owner-only folder: reachable by this user only. */
export const SOCKET_FILE = '.s.loupe';
/** Unix socket paths are limited to about 107 bytes (sockaddr_un). */
const MAX_SOCKET_PATH = 100;

export type Owner = { pid: number; startedAt: string | null; role: string };
export type Claim =
  { held: false; release: () => Promise<void>; socketPath: string } | { held: true; owner: Owner; socketPath: string };

/** The folder created owner-only (0700), tightened when it exists; then this process takes it, or learns
 *  which live process holds it. Two processes claiming at the same moment settle on one: each writes its
 *  own file and links it into place, which fails for all but one. */
export async function claimDataFolder(dataDir: string, role: string): Promise<Claim> {
  const dir = path.resolve(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const socketPath = path.join(dir, SOCKET_FILE);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH)
    throw new Error(`DATA_DIR's path is too long for the database socket inside it (${socketPath}): use a shorter one`);
  const lockPath = path.join(dir, LOCK_FILE);
  const self: Owner = { pid: process.pid, startedAt: processStart(process.pid), role };
  const mine = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(mine, JSON.stringify(self), { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        await link(mine, lockPath);
        return { held: false, socketPath, release: () => releaseIfMine(lockPath, self) };
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const owner = await readOwner(lockPath);
      if (owner && alive(owner)) return { held: true, owner, socketPath };
      // The owner is gone (or its file was half-written by a crash): move its file aside, then link ours.
      // A rename moves whatever is there now, so a racing claimer's fresh lock is never deleted unseen.
      const aside = `${lockPath}.stale.${randomBytes(4).toString('hex')}`;
      await rename(lockPath, aside).catch(() => {});
      const moved = await readOwner(aside);
      if (moved && alive(moved)) await rename(aside, lockPath).catch(() => {});
      else await rm(aside, { force: true });
    }
    throw new Error(`could not take the lock ${lockPath}`);
  } finally {
    await rm(mine, { force: true });
  }
}

/** Owner-only modes for everything under the folder: the database engine writes its files world-writable. */
export async function tightenModes(dir: string): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      await chmod(full, 0o700);
      await tightenModes(full);
    } else if (entry.isFile()) {
      const { mode } = await stat(full);
      if (mode & 0o077) await chmod(full, mode & 0o700);
    }
  }
}

async function releaseIfMine(lockPath: string, self: Owner): Promise<void> {
  const owner = await readOwner(lockPath);
  if (owner?.pid === self.pid && owner.startedAt === self.startedAt) await rm(lockPath, { force: true });
}

async function readOwner(file: string): Promise<Owner | null> {
  try {
    const value = JSON.parse(await readFile(file, 'utf8')) as Partial<Owner>;
    return typeof value.pid === 'number'
      ? { pid: value.pid, startedAt: value.startedAt ?? null, role: value.role ?? 'unknown' }
      : null;
  } catch {
    return null;
  }
}

/** A process with the recorded pid runs, and (where the system tells) it is the one that started then, not
 *  a later process that was given the same pid. */
function alive(owner: Owner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const startedAt = processStart(owner.pid);
  return owner.startedAt === null || startedAt === null || startedAt === owner.startedAt;
}

/** When a process started, in clock ticks since boot (Linux /proc); null where that cannot be read. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}
