import { describe, expect, it } from 'vitest';
import { cli } from './helpers.js';

// Each case is refused before a project is looked up, so no corpus project is fetched here
// (replay.json-simple.test.ts checks a malformed test name against a fetched one).

describe('the witnessgym command line', () => {
  it('prints help for the program and for each command', async () => {
    const top = await cli(['--help']);
    expect(top.exitCode).toBe(0);
    expect(top.stdout).toMatch(/corpus/);
    expect(top.stdout).toMatch(/replay/);
    for (const command of [['corpus', 'list'], ['corpus', 'fetch'], ['replay']]) {
      const help = await cli([...command, '--help']);
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toMatch(/--json/);
    }
  });

  it('answers usage mistakes with one line and exit code 2', async () => {
    for (const args of [
      ['bogus'],
      ['replay', 'json-simple'],
      ['replay', 'json-simple', '--test', 'a.B', '--runs', '0'],
    ]) {
      const result = await cli(args);
      expect(result.exitCode).toBe(2);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(/^witnessgym: .*\(see --help\)$/m);
    }
  });
});
