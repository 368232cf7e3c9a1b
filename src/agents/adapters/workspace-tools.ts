import type { Dirent } from 'node:fs';
import { BUILD_OUTPUT } from '../../toolchains/layout.js';
import { lstat, mkdir, readdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { globToRegExp } from '../../core/glob.js';
import { runProcess } from '../../core/process.js';
import type { Sandbox } from '../../sandbox/bwrap.js';
import { capMiddle, capTail } from '../types.js';

/** A tool call the workspace refuses or cannot carry out; its message goes back to the model. */
class ToolError extends Error {}

/** Directories no injection needs to look into, and that are large. */
const SKIPPED_DIRS = new Set(['.git', BUILD_OUTPUT, 'node_modules', '.idea']);
const MAX_LISTED = 500;
const MAX_MATCHES = 100;
const MAX_SEARCHED_FILE_BYTES = 1024 * 1024;

export interface WorkspaceToolsOptions {
  replayCommand: string;
  /** Runs of the replay command allowed in one agent run. */
  replayBudget: number;
  /** Wall-clock time by which every replay must have ended (ms since epoch). */
  deadline: number;
  /** Characters of any one tool result handed back to the model. */
  maxOutputChars: number;
  /** When given, the replay command runs inside it (the file tools work on the host). */
  sandbox?: Sandbox;
}

type Json = Record<string, unknown>;

function stringArg(args: Json, name: string, required: true): string;
function stringArg(args: Json, name: string, required: false): string | undefined;
function stringArg(args: Json, name: string, required: boolean): string | undefined {
  const value = args[name];
  if (value === undefined || value === null) {
    if (required) throw new ToolError(`missing argument '${name}'`);
    return undefined;
  }
  if (typeof value !== 'string') throw new ToolError(`argument '${name}' must be a string`);
  return value;
}

function intArg(args: Json, name: string): number | undefined {
  const value = args[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new ToolError(`argument '${name}' must be a positive integer`);
  }
  return value;
}

async function isSymlink(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isSymbolicLink();
  } catch {
    return false;
  }
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/**
 * The built-in agent's view of a workspace: file tools confined to the workspace (no `..` or
 * absolute escapes, no symlinks leading out) and the replay command with its run budget.
 */
export class WorkspaceTools {
  private replaysUsed = 0;

  private constructor(
    private readonly root: string,
    private readonly options: WorkspaceToolsOptions,
  ) {}

  static async open(workspace: string, options: WorkspaceToolsOptions): Promise<WorkspaceTools> {
    return new WorkspaceTools(await realpath(workspace), options);
  }

  /** The absolute path for a model-given path, or a ToolError when it leaves the workspace. */
  async resolve(given: string): Promise<string> {
    if (given.includes('\0')) throw new ToolError('path contains a NUL character');
    const target = path.resolve(this.root, given === '' ? '.' : given);
    if (!isInside(this.root, target)) {
      throw new ToolError(
        `path '${given}' is outside the repository; use repository-relative paths`,
      );
    }
    // The nearest existing ancestor decides where the path really leads (symlinks included).
    let existing = target;
    for (;;) {
      let real: string;
      try {
        real = await realpath(existing);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
        // Writing through a dangling symlink would create its target, wherever that is.
        if (await isSymlink(existing)) {
          throw new ToolError(`path '${given}' goes through a dangling symlink`);
        }
        existing = path.dirname(existing);
        continue;
      }
      if (!isInside(this.root, real)) {
        throw new ToolError(`path '${given}' leads outside the repository through a symlink`);
      }
      return target;
    }
  }

  private display(absolute: string): string {
    return path.relative(this.root, absolute).split(path.sep).join('/') || '.';
  }

  private cap(text: string): string {
    return capMiddle(text, this.options.maxOutputChars);
  }

  async listFiles(args: Json): Promise<string> {
    const dir = await this.resolve(stringArg(args, 'path', false) ?? '.');
    const recursive = args['recursive'] === true;
    const lines: string[] = [];
    let truncated = false;
    const walk = async (current: string): Promise<void> => {
      let entries: Dirent[];
      try {
        entries = await readdir(current, { withFileTypes: true });
      } catch (error) {
        throw new ToolError(`cannot list '${this.display(current)}': ${(error as Error).message}`);
      }
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        if (lines.length >= MAX_LISTED) {
          truncated = true;
          return;
        }
        const full = path.join(current, entry.name);
        if (entry.isDirectory()) {
          lines.push(`${this.display(full)}/`);
          if (recursive && !SKIPPED_DIRS.has(entry.name)) await walk(full);
        } else {
          lines.push(this.display(full));
        }
      }
    };
    await walk(dir);
    if (truncated) lines.push(`[... listing stopped at ${MAX_LISTED} entries ...]`);
    return this.cap(lines.join('\n') || '(empty directory)');
  }

  async readFile(args: Json): Promise<string> {
    const file = await this.resolve(stringArg(args, 'path', true));
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ToolError(`cannot read '${this.display(file)}': ${(error as Error).message}`);
    }
    const lines = text.split('\n');
    const start = intArg(args, 'start_line') ?? 1;
    const end = Math.min(intArg(args, 'end_line') ?? lines.length, lines.length);
    if (start > end)
      throw new ToolError(`empty line range ${start}-${end} (file has ${lines.length} lines)`);
    const numbered = lines
      .slice(start - 1, end)
      .map((line, i) => `${String(start + i).padStart(6)}\t${line}`)
      .join('\n');
    return this.cap(`${this.display(file)} lines ${start}-${end} of ${lines.length}:\n${numbered}`);
  }

  async search(args: Json): Promise<string> {
    const pattern = stringArg(args, 'pattern', true);
    let regex: RegExp;
    try {
      regex = new RegExp(pattern);
    } catch (error) {
      throw new ToolError(`invalid regular expression: ${(error as Error).message}`);
    }
    const glob = stringArg(args, 'path_glob', false);
    const filter = glob ? globToRegExp(glob) : undefined;
    const matches: string[] = [];
    const walk = async (current: string): Promise<void> => {
      const entries = await readdir(current, { withFileTypes: true });
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        if (matches.length >= MAX_MATCHES) return;
        const full = path.join(current, entry.name);
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRS.has(entry.name)) await walk(full);
          continue;
        }
        // Symlinked files are skipped rather than followed: they may lead out of the workspace.
        if (!entry.isFile()) continue;
        const relative = this.display(full);
        if (filter && !filter.test(relative)) continue;
        if ((await stat(full)).size > MAX_SEARCHED_FILE_BYTES) continue;
        const text = await readFile(full, 'utf8');
        if (text.includes('\0')) continue;
        text.split('\n').forEach((line, i) => {
          if (matches.length < MAX_MATCHES && regex.test(line)) {
            matches.push(`${relative}:${i + 1}: ${line.trim()}`);
          }
        });
      }
    };
    await walk(this.root);
    if (matches.length === 0) return 'no matches';
    const more =
      matches.length >= MAX_MATCHES ? `\n[... stopped at ${MAX_MATCHES} matches ...]` : '';
    return this.cap(matches.join('\n') + more);
  }

  async writeFile(args: Json): Promise<string> {
    const file = await this.resolve(stringArg(args, 'path', true));
    const content = stringArg(args, 'content', true);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
    return `wrote ${content.length} characters to ${this.display(file)}`;
  }

  async replaceInFile(args: Json): Promise<string> {
    const file = await this.resolve(stringArg(args, 'path', true));
    const oldText = stringArg(args, 'old_text', true);
    const newText = stringArg(args, 'new_text', true);
    if (oldText === '') throw new ToolError('old_text must not be empty');
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new ToolError(`cannot read '${this.display(file)}': ${(error as Error).message}`);
    }
    const occurrences = text.split(oldText).length - 1;
    if (occurrences !== 1) {
      throw new ToolError(
        `old_text occurs ${occurrences} times in ${this.display(file)}; it must occur exactly once (include more context)`,
      );
    }
    const index = text.indexOf(oldText);
    await writeFile(file, text.slice(0, index) + newText + text.slice(index + oldText.length));
    return `replaced 1 occurrence in ${this.display(file)}`;
  }

  async runReplay(): Promise<string> {
    if (this.replaysUsed >= this.options.replayBudget) {
      throw new ToolError(
        `the replay budget of ${this.options.replayBudget} runs is used up; finish with your report`,
      );
    }
    const remaining = this.options.deadline - Date.now();
    if (remaining <= 0) throw new ToolError('no time left to run the replay command');
    this.replaysUsed++;
    const { sandbox } = this.options;
    const args = ['-c', this.options.replayCommand];
    const command = sandbox
      ? sandbox.wrap('/bin/sh', args, this.root)
      : { file: '/bin/sh', args, cwd: this.root };
    const result = await runProcess(command.file, command.args, {
      cwd: command.cwd,
      ...(sandbox && { env: sandbox.env() }),
      timeoutMs: remaining,
      graceMs: 2000,
      maxOutputBytes: 1024 * 1024,
    });
    const output = `${result.stdout}${result.stderr ? `\n[stderr]\n${result.stderr}` : ''}`;
    const status = result.timedOut
      ? 'timed out (killed)'
      : `exit code: ${result.exitCode ?? `none (signal ${result.signal ?? '?'})`}`;
    const tail = capTail(output.trimEnd(), Math.max(1000, this.options.maxOutputChars - 200));
    return `${status}\nreplay runs used: ${this.replaysUsed} of ${this.options.replayBudget}\n--- output (tail) ---\n${tail}`;
  }

  /** Runs one tool call; refusals and failures become an `error:` result the model can read. */
  async call(name: string, rawArguments: string): Promise<string> {
    let args: Json;
    try {
      const parsed: unknown = rawArguments.trim() === '' ? {} : JSON.parse(rawArguments);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        return 'error: tool arguments must be a JSON object';
      }
      args = parsed as Json;
    } catch (error) {
      return `error: tool arguments are not valid JSON (${(error as Error).message})`;
    }
    try {
      switch (name) {
        case 'list_files':
          return await this.listFiles(args);
        case 'read_file':
          return await this.readFile(args);
        case 'search':
          return await this.search(args);
        case 'write_file':
          return await this.writeFile(args);
        case 'replace_in_file':
          return await this.replaceInFile(args);
        case 'run_replay':
          return await this.runReplay();
        default:
          return `error: unknown tool '${name}'`;
      }
    } catch (error) {
      if (error instanceof ToolError) return `error: ${error.message}`;
      const code = (error as NodeJS.ErrnoException).code;
      if (code) return `error: ${(error as Error).message}`;
      throw error;
    }
  }
}

/** The tools as chat-completions function definitions. */
export const WORKSPACE_TOOL_DEFINITIONS = [
  {
    type: 'function' as const,
    function: {
      name: 'list_files',
      description:
        'List the entries of a directory of the repository (directories end with /). Paths are relative to the repository root.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Directory, default "."' },
          recursive: {
            type: 'boolean',
            description: 'Also list subdirectories (skips .git, target)',
          },
        },
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'read_file',
      description: 'Read a text file, with line numbers; optionally only a range of lines.',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          start_line: { type: 'integer', minimum: 1 },
          end_line: { type: 'integer', minimum: 1 },
        },
        required: ['path'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'search',
      description:
        'Search the repository for lines matching a JavaScript regular expression; optionally only in files matching a glob such as "src/main/**/*.java".',
      parameters: {
        type: 'object',
        properties: {
          pattern: { type: 'string' },
          path_glob: { type: 'string' },
        },
        required: ['pattern'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'write_file',
      description: 'Create or overwrite a file with the given content.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'replace_in_file',
      description:
        'Replace the one occurrence of old_text in a file by new_text (old_text must occur exactly once; line numbers are not part of the file).',
      parameters: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          old_text: { type: 'string' },
          new_text: { type: 'string' },
        },
        required: ['path', 'old_text', 'new_text'],
        additionalProperties: false,
      },
    },
  },
  {
    type: 'function' as const,
    function: {
      name: 'run_replay',
      description:
        "Run the task's reproduction command verbatim from the repository root; returns its exit code (non-zero: the target test fails) and the tail of its output. Counts against the run budget.",
      parameters: { type: 'object', properties: {}, additionalProperties: false },
    },
  },
];
