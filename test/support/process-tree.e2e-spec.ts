import { spawn } from 'node:child_process';
import { once } from 'node:events';

import { eventually } from './eventually.js';
import { isRunning, killTree } from './process-tree.js';

describe('killTree (test support)', () => {
  (process.platform === 'linux' ? it : it.skip)('kills a process and the processes it started', async () => {
    // A shell that starts two sleeps and prints their pids, as npm starts a script's tools.
    const shell = spawn('sh', ['-c', 'sleep 60 & echo $!; sleep 60 & echo $!; wait'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let printed = '';
    shell.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    await eventually(() => printed.trim().split('\n').length === 2);
    const sleeps = printed.trim().split('\n').map(Number);
    expect(sleeps.every(isRunning)).toBe(true);
    const exited = once(shell, 'exit');

    await killTree(shell.pid!);

    await exited;
    await eventually(() => !sleeps.some(isRunning));
  });
});
