import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { exists } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';

/* A run stopped by a signal leaves no temporary directories behind. */

const FS = path.join(packageRoot(), 'dist', 'src', 'core', 'fs.js');

describe('temporary directories', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`are removed when the process gets ${signal}, which still ends it`, async () => {
      const child = spawn(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { makeTempDir } = await import(${JSON.stringify(FS)});
           const dir = await makeTempDir('signal');
           console.log(dir);
           setInterval(() => {}, 1000);`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      // A child that ends before printing (dist/ not built, say) fails the test at once.
      const dir = await new Promise<string>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
        child.once('exit', (code) =>
          reject(
            new Error(`the child ended (exit ${code}) before making a directory; is ${FS} built?`),
          ),
        );
      });
      expect(await exists(dir)).toBe(true);
      const ended = new Promise<NodeJS.Signals | null>((resolve) =>
        child.once('exit', (_code, how) => resolve(how)),
      );
      child.kill(signal);
      expect(await ended).toBe(signal);
      expect(await exists(dir)).toBe(false);
    });
  }
});
