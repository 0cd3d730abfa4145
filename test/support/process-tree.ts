import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';

/**
 * Kills `pid` and every process below it, with SIGKILL. A command run through
 * npm is a tree (npm, a shell, the tools the script runs): killing npm alone
 * leaves the others running, and their output pipes open. The tree is read
 * from /proc (Linux, where the tests run); elsewhere `pid` alone is killed.
 */
export async function killTree(pid: number): Promise<void> {
  for (const each of [pid, ...(await descendants(pid))]) {
    try {
      process.kill(each, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

/**
 * Whether a process of that pid is running (one of another user, such as
 * PostgreSQL's, answers EPERM). One that has exited but that its parent has not
 * reaped yet, a zombie, does not count.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return state(pid) !== 'Z';
}

/** The process's state letter from /proc (Linux), or undefined. */
function state(pid: number): string | undefined {
  try {
    return afterName(readFileSync(`/proc/${pid}/stat`, 'utf8'))[0];
  } catch {
    return undefined;
  }
}

async function descendants(root: number): Promise<number[]> {
  const children = new Map<number, number[]>();
  const pids = (await readdir('/proc').catch(() => [])).filter((entry) => /^\d+$/.test(entry));
  await Promise.all(
    pids.map(async (pid) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
      const parent = Number(afterName(stat)[1]);
      if (parent) {
        children.set(parent, [...(children.get(parent) ?? []), Number(pid)]);
      }
    }),
  );
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0;) {
    const below = children.get(queue.shift()!) ?? [];
    found.push(...below);
    queue = [...queue, ...below];
  }
  return found;
}

/**
 * The fields of a /proc/PID/stat after the name, state first: "pid (name)
 * state ppid …", where the name may hold spaces and parentheses.
 */
function afterName(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}
