import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { errorMessage, UserError } from '../../core/errors.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { runProcess, shellJoin } from '../../core/process.js';
import {
  capMiddle,
  capTail,
  FINAL_TEXT_LIMIT,
  TRANSCRIPT_LIMIT,
  type AgentAdapter,
  type AgentOutcome,
  type AgentSpec,
  type AgentRunInput,
  type AgentRunResult,
} from '../types.js';

/** How to start one run of a process agent. */
interface Invocation {
  file: string;
  args: string[];
  /** Fed to the agent's stdin; stdin is /dev/null otherwise. */
  stdin?: string;
  /** A file the agent writes its final message to; its stdout is the final text otherwise. */
  finalTextFile?: string;
}

/** Options shared by the process agents. */
export interface ProcessAgentOptions {
  /** Added to the agent's environment. */
  env?: Record<string, string>;
  /** Time between SIGTERM and SIGKILL of the agent's process group on timeout. */
  graceMs?: number;
}

/** Options of the vendor CLIs (claude-code, codex, opencode). */
export interface VendorCliOptions extends ProcessAgentOptions {
  /** Executable; default from WITNESSGYM_<NAME>_BIN, then the CLI's usual name on PATH. */
  bin?: string;
  model?: string;
  /** Appended to the flags this adapter sets. */
  extraArgs?: string[];
}

const MAX_CAPTURE = 4 * 1024 * 1024;

/**
 * Starts a program with its stdin redirected from a file. Piping the prompt instead would raise
 * EPIPE in this process when an agent exits without reading it. `exec` keeps the program the
 * process group's only member; a program that cannot be found makes the shell exit 127 (126 when
 * it cannot be executed).
 */
const STDIN_FROM_FILE = 'f="$1"; shift; exec "$@" < "$f"';
const NOT_FOUND_CODES = [126, 127];

function combinedPrompt(input: AgentRunInput): string {
  return `${input.systemPrompt}\n\n${input.userPrompt}\n`;
}

/** Arguments for a log line: prompts passed as arguments would flood it. */
function displayCommand(file: string, args: readonly string[]): string {
  return shellJoin([
    file,
    ...args.map((arg) => (arg.length > 120 ? `<${arg.length} chars>` : arg)),
  ]);
}

async function runInvocation(
  name: string,
  invocation: Invocation,
  input: AgentRunInput,
  options: ProcessAgentOptions,
  scratch: string,
): Promise<AgentRunResult> {
  const started = performance.now();
  let shown = displayCommand(invocation.file, invocation.args);
  let file = invocation.file;
  let args = invocation.args;
  if (invocation.stdin !== undefined) {
    const stdinFile = path.join(scratch, 'stdin.txt');
    await writeFile(stdinFile, invocation.stdin);
    file = '/bin/sh';
    args = ['-c', STDIN_FROM_FILE, 'sh', stdinFile, invocation.file, ...invocation.args];
    shown += ` < ${shellJoin([stdinFile])}`;
  }
  // The scratch dir (prompt, stdin and final-text files) is bound at its own path, so the paths
  // in the command line hold inside the sandbox too.
  const sandbox = await input.sandbox?.withWritable(scratch);
  const command = sandbox
    ? sandbox.wrap(file, args, input.workspace)
    : { file, args, cwd: input.workspace };
  input.log(`${name}: ${shown} (in ${input.workspace}${sandbox ? ', sandboxed' : ''})`);
  // The proxy outlives this run (one per sandbox): this run's decisions are the ones after here.
  const egressMark = sandbox?.egress?.mark();
  let outcome: AgentOutcome;
  let stdout = '';
  let stderr = '';
  try {
    const result = await runProcess(command.file, command.args, {
      cwd: command.cwd,
      env: sandbox ? sandbox.env(options.env) : { ...process.env, ...options.env },
      timeoutMs: input.timeoutMs,
      graceMs: options.graceMs ?? 5000,
      maxOutputBytes: MAX_CAPTURE,
    });
    stdout = result.stdout;
    stderr = result.stderr;
    if (result.timedOut) {
      outcome = { kind: 'Timeout' };
    } else if (result.exitCode !== null && NOT_FOUND_CODES.includes(result.exitCode)) {
      outcome = {
        kind: 'FailedToStart',
        reason: `exit code ${result.exitCode}: ${capTail(stderr.trim(), 300) || 'command not found'}`,
      };
    } else {
      outcome = { kind: 'Exited', code: result.exitCode, signal: result.signal };
    }
  } catch (error) {
    // spawn itself failed: no such executable or working directory.
    outcome = { kind: 'FailedToStart', reason: `${file}: ${errorMessage(error)}` };
  }
  let finalText = stdout;
  if (invocation.finalTextFile) {
    const written = await readFile(invocation.finalTextFile, 'utf8').catch(() => '');
    if (written.trim()) finalText = written;
  }
  const egress =
    sandbox?.egress && egressMark
      ? `\n[egress]\n${sandbox.egress.linesSince(egressMark).join('\n') || 'no connection asked for'}\n`
      : '';
  const transcript = `$ ${shown}\n[stdout]\n${stdout}\n[stderr]\n${stderr}${egress}`;
  return {
    outcome,
    finalText: capTail(finalText, FINAL_TEXT_LIMIT),
    transcript: capMiddle(transcript, TRANSCRIPT_LIMIT),
    durationMs: Math.round(performance.now() - started),
  };
}

/** One run in a private temporary directory outside the workspace (prompt and output files). */
async function runInScratch(
  name: string,
  plan: (scratch: string) => Promise<Invocation>,
  input: AgentRunInput,
  options: ProcessAgentOptions,
): Promise<AgentRunResult> {
  const scratch = await makeTempDir('agent');
  try {
    return await runInvocation(name, await plan(scratch), input, options, scratch);
  } finally {
    await removeTree(scratch);
  }
}

export const PROMPT_FILE_PLACEHOLDER = '{prompt_file}';

export interface CommandAgentOptions extends ProcessAgentOptions {
  /**
   * A shell command line. With a `{prompt_file}` placeholder the prompt (system prompt and task
   * payload) is written to a file outside the workspace whose quoted path replaces it; without,
   * the prompt arrives on stdin. The agent's stdout is its final text.
   */
  command: string;
}

/** Any executable or command line as the agent. */
export function createCommandAdapter(options: CommandAgentOptions): AgentAdapter {
  if (!options.command.trim())
    throw new UserError('the command agent needs a command (--agent-command)');
  const usesFile = options.command.includes(PROMPT_FILE_PLACEHOLDER);
  return {
    kind: 'agent',
    // Environment and grace period left out, as for the vendor CLIs (see vendorSpec).
    spec: { name: 'command', command: options.command },
    run: (input) =>
      runInScratch(
        'command',
        async (scratch) => {
          if (!usesFile) {
            return { file: '/bin/sh', args: ['-c', options.command], stdin: combinedPrompt(input) };
          }
          const promptFile = path.join(scratch, 'prompt.md');
          await writeFile(promptFile, combinedPrompt(input));
          const command = options.command
            .split(PROMPT_FILE_PLACEHOLDER)
            .join(shellJoin([promptFile]));
          return { file: '/bin/sh', args: ['-c', command] };
        },
        input,
        options,
      ),
  };
}

function vendorBin(
  options: VendorCliOptions,
  variable: string,
  fallback: string,
  env: NodeJS.ProcessEnv,
): string {
  return options.bin ?? env[variable] ?? fallback;
}

/**
 * The endpoints each vendor CLI calls with an API key: its sandbox's default allow-list (the
 * sandbox has no other network). A login other than an API key, a gateway or another provider
 * needs its own endpoints (`--allow-endpoint`). opencode reads its model catalogue from models.dev.
 */
export const VENDOR_ENDPOINTS: Readonly<Record<string, readonly string[]>> = {
  'claude-code': ['api.anthropic.com:443'],
  codex: ['api.openai.com:443'],
  opencode: ['api.anthropic.com:443', 'api.openai.com:443', 'models.dev:443'],
};

/**
 * A vendor CLI's spec. The environment is left out (credentials travel there), and so is the
 * kill grace period, which changes nothing the agent does.
 */
function vendorSpec(name: string, bin: string, options: VendorCliOptions): AgentSpec {
  return { name, bin, model: options.model ?? null, extraArgs: options.extraArgs ?? [] };
}

/**
 * Claude Code in print mode. Flags from the CLI reference
 * (docs.anthropic.com/en/docs/claude-code/cli-reference): `-p` prints the final response and exits,
 * reading the prompt from stdin when no prompt argument is given; `--append-system-prompt` adds
 * ours to Claude Code's own (which carries its tool instructions); `--dangerously-skip-permissions`
 * (= `--permission-mode bypassPermissions`) lets it edit files and run commands without asking.
 * Run as root, Claude Code refuses that flag unless IS_SANDBOX=1 declares a disposable machine
 * (anthropics/claude-code#3490, #9184); this adapter sets it then, as the codex adapter grants full
 * access, unless IS_SANDBOX is already set either way.
 */
export function createClaudeCodeAdapter(
  options: VendorCliOptions = {},
  env: NodeJS.ProcessEnv = process.env,
  uid: number | undefined = process.getuid?.(),
): AgentAdapter {
  const bin = vendorBin(options, 'WITNESSGYM_CLAUDE_BIN', 'claude', env);
  const sandboxDeclared = env.IS_SANDBOX !== undefined || options.env?.IS_SANDBOX !== undefined;
  const runOptions =
    uid === 0 && !sandboxDeclared
      ? { ...options, env: { ...options.env, IS_SANDBOX: '1' } }
      : options;
  return {
    kind: 'agent',
    spec: vendorSpec('claude-code', bin, options),
    run: (input) =>
      runInScratch(
        'claude-code',
        async () => ({
          file: bin,
          args: [
            '-p',
            '--dangerously-skip-permissions',
            '--output-format',
            'text',
            '--append-system-prompt',
            input.systemPrompt,
            // Its web tools run at the vendor, past any egress allow-list: every witness is a
            // public upstream test, a search away.
            '--disallowedTools',
            'WebSearch,WebFetch',
            ...(options.model ? ['--model', options.model] : []),
            ...(options.extraArgs ?? []),
          ],
          stdin: input.userPrompt,
        }),
        input,
        runOptions,
      ),
  };
}

export type CodexSandbox = 'read-only' | 'workspace-write' | 'danger-full-access';

export interface CodexOptions extends VendorCliOptions {
  /**
   * Default danger-full-access: the replay command (Maven, the runner) writes outside the
   * workspace (local repository, cache), which workspace-write would refuse.
   */
  sandbox?: CodexSandbox;
}

/**
 * Codex non-interactive mode. Flags from codex-rs/exec/src/cli.rs and the non-interactive docs
 * (developers.openai.com/codex/noninteractive): `codex exec` never asks for approvals; `-` reads
 * the prompt from stdin; `--sandbox` sets what commands may touch; `--skip-git-repo-check` allows
 * a workspace that is not a Git checkout; `--output-last-message` writes the final agent message
 * to a file (stdout carries it too, progress goes to stderr). There is no system-prompt flag, so
 * the system prompt leads the stdin prompt.
 */
export function createCodexAdapter(
  options: CodexOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): AgentAdapter {
  const bin = vendorBin(options, 'WITNESSGYM_CODEX_BIN', 'codex', env);
  const sandbox = options.sandbox ?? 'danger-full-access';
  return {
    kind: 'agent',
    spec: { ...vendorSpec('codex', bin, options), sandbox },
    run: (input) =>
      runInScratch(
        'codex',
        async (scratch) => {
          const lastMessage = path.join(scratch, 'last-message.txt');
          return {
            file: bin,
            args: [
              'exec',
              '--sandbox',
              sandbox,
              '--skip-git-repo-check',
              // Web search runs at the vendor, past any egress allow-list (see claude-code).
              '-c',
              'web_search=disabled',
              '--output-last-message',
              lastMessage,
              ...(options.model ? ['--model', options.model] : []),
              ...(options.extraArgs ?? []),
              '-',
            ],
            stdin: combinedPrompt(input),
            finalTextFile: lastMessage,
          };
        },
        input,
        options,
      ),
  };
}

/**
 * OpenCode non-interactive mode. Flags from packages/opencode/src/cli/cmd/run.ts and the
 * permissions docs (opencode.ai/docs/permissions): `opencode run` reads the message from stdin
 * when stdin is not a terminal and prints the assistant's text to stdout; `--auto` approves
 * every permission request not explicitly denied (file edits, shell commands). There is no
 * system-prompt flag, so the system prompt leads the message.
 */
export function createOpenCodeAdapter(
  options: VendorCliOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): AgentAdapter {
  const bin = vendorBin(options, 'WITNESSGYM_OPENCODE_BIN', 'opencode', env);
  return {
    kind: 'agent',
    spec: vendorSpec('opencode', bin, options),
    run: (input) =>
      runInScratch(
        'opencode',
        async () => ({
          file: bin,
          args: [
            'run',
            '--auto',
            ...(options.model ? ['--model', options.model] : []),
            ...(options.extraArgs ?? []),
          ],
          stdin: combinedPrompt(input),
        }),
        input,
        options,
      ),
  };
}
