import OpenAI, { APIError } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { UserError } from '../../core/errors.js';
import {
  capMiddle,
  capTail,
  FINAL_TEXT_LIMIT,
  REPLAY_BUDGET,
  TRANSCRIPT_LIMIT,
  type AgentAdapter,
  type AgentOutcome,
  type AgentRunInput,
  type AgentRunResult,
} from '../types.js';
import { WORKSPACE_TOOL_DEFINITIONS, WorkspaceTools } from './workspace-tools.js';

export interface OpenAIAdapterOptions {
  /** Any OpenAI-compatible endpoint, e.g. http://localhost:8000/v1. */
  baseURL: string;
  model: string;
  /** Default: WITNESSGYM_OPENAI_API_KEY, then OPENAI_API_KEY; optional for local endpoints. */
  apiKey?: string;
  temperature?: number;
  /** Model turns (requests) per run; default 40. */
  maxTurns?: number;
  /** Characters of one tool result sent back; default 20000. */
  maxToolOutputChars?: number;
  /** Runs of the replay command per run; default 3, the paper's budget. */
  replayBudget?: number;
  /** The SDK's retries of failed requests; default 2. */
  maxRetries?: number;
}

export const DEFAULT_MAX_TURNS = 40;
const DEFAULT_TOOL_OUTPUT = 20_000;

function isLocalEndpoint(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    host === '0.0.0.0' ||
    /^127\.\d+\.\d+\.\d+$/.test(host)
  );
}

function describeError(error: unknown): string {
  if (error instanceof APIError) {
    return error.status === undefined ? error.message : `HTTP ${error.status}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The workspace could not be opened: nothing ran. */
class StartError extends Error {}

function oneLine(text: string, limit = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit)}…`;
}

/**
 * The built-in agent: a tool-using chat-completions loop over any OpenAI-compatible endpoint.
 * Tools read, search and edit the workspace and run the replay command; the final assistant
 * message (one without tool calls) is the run's final text.
 */
export function createOpenAIAdapter(
  options: OpenAIAdapterOptions,
  env: NodeJS.ProcessEnv = process.env,
): AgentAdapter {
  let url: URL;
  try {
    url = new URL(options.baseURL);
  } catch {
    throw new UserError(`--base-url '${options.baseURL}' is not a URL`);
  }
  if (!options.model.trim()) throw new UserError('the openai agent needs a model (--model)');
  const apiKey = options.apiKey ?? env.WITNESSGYM_OPENAI_API_KEY ?? env.OPENAI_API_KEY;
  if (!apiKey && !isLocalEndpoint(url)) {
    throw new UserError(
      `the openai agent needs an API key for ${url.origin}: set WITNESSGYM_OPENAI_API_KEY or OPENAI_API_KEY`,
    );
  }
  const client = new OpenAI({
    baseURL: options.baseURL,
    // Local servers usually ignore the key, but the SDK requires one.
    apiKey: apiKey ?? 'no-key',
    maxRetries: options.maxRetries ?? 2,
  });
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) {
    throw new UserError(`--max-turns must be a positive integer, not ${maxTurns}`);
  }
  if (
    options.temperature !== undefined &&
    !(options.temperature >= 0 && options.temperature <= 2)
  ) {
    throw new UserError(`--temperature must be between 0 and 2, not ${options.temperature}`);
  }

  const maxToolOutputChars = options.maxToolOutputChars ?? DEFAULT_TOOL_OUTPUT;
  const replayBudget = options.replayBudget ?? REPLAY_BUDGET;

  async function converse(
    input: AgentRunInput,
    tools: WorkspaceTools,
    signal: AbortSignal,
    transcript: string[],
    usage: { inputTokens: number; outputTokens: number },
  ): Promise<{ outcome: AgentOutcome; finalText: string }> {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: input.systemPrompt },
      { role: 'user', content: input.userPrompt },
    ];
    for (let turn = 1; turn <= maxTurns; turn++) {
      let completion: OpenAI.Chat.ChatCompletion;
      try {
        completion = await client.chat.completions.create(
          {
            model: options.model,
            messages,
            tools: WORKSPACE_TOOL_DEFINITIONS,
            tool_choice: 'auto',
            ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
          },
          { signal },
        );
      } catch (error) {
        if (signal.aborted) return { outcome: { kind: 'Timeout' }, finalText: '' };
        const reason = describeError(error);
        transcript.push(`[error turn ${turn}] ${reason}`);
        // A first request that fails is a wrong URL, key or model: later ones are mid-run trouble.
        return {
          outcome: turn === 1 ? { kind: 'FailedToStart', reason } : { kind: 'Failed', reason },
          finalText: '',
        };
      }
      usage.inputTokens += completion.usage?.prompt_tokens ?? 0;
      usage.outputTokens += completion.usage?.completion_tokens ?? 0;
      const message = completion.choices[0]?.message;
      if (!message) {
        return {
          outcome: { kind: 'Failed', reason: 'the endpoint returned no choices' },
          finalText: '',
        };
      }
      const calls = message.tool_calls ?? [];
      messages.push({
        role: 'assistant',
        content: message.content,
        ...(calls.length > 0 ? { tool_calls: calls } : {}),
      });
      if (message.content) transcript.push(`[assistant turn ${turn}]\n${message.content}`);
      if (calls.length === 0)
        return { outcome: { kind: 'Completed' }, finalText: message.content ?? '' };
      for (const call of calls) {
        const name = call.type === 'function' ? call.function.name : call.custom.name;
        const args = call.type === 'function' ? call.function.arguments : call.custom.input;
        const result =
          call.type === 'function'
            ? await tools.call(name, args)
            : `error: '${name}' is not a function tool of this agent`;
        input.log(`openai turn ${turn}: ${name}(${oneLine(args, 80)}) -> ${oneLine(result, 100)}`);
        transcript.push(`[tool ${name} ${args}]\n${capMiddle(result, 4000)}`);
        messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      }
      if (signal.aborted) return { outcome: { kind: 'Timeout' }, finalText: '' };
    }
    return {
      outcome: { kind: 'Failed', reason: `turn budget of ${maxTurns} model requests exhausted` },
      finalText: '',
    };
  }

  return {
    kind: 'agent',
    // The SDK's retries only re-send a failed request, so they are not part of the spec.
    spec: {
      name: 'openai',
      baseURL: options.baseURL,
      model: options.model,
      temperature: options.temperature ?? null,
      maxTurns,
      maxToolOutputChars,
      replayBudget,
    },
    async run(input: AgentRunInput): Promise<AgentRunResult> {
      const started = performance.now();
      const transcript: string[] = [];
      const usage = { inputTokens: 0, outputTokens: 0 };
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), input.timeoutMs);
      let result: { outcome: AgentOutcome; finalText: string };
      try {
        let tools: WorkspaceTools;
        try {
          tools = await WorkspaceTools.open(input.workspace, {
            replayCommand: input.replayCommand,
            replayBudget,
            deadline: Date.now() + input.timeoutMs,
            maxOutputChars: maxToolOutputChars,
            sandbox: input.sandbox,
          });
        } catch (error) {
          throw new StartError(describeError(error));
        }
        result = await converse(input, tools, controller.signal, transcript, usage);
      } catch (error) {
        const reason = describeError(error);
        transcript.push(`[error] ${reason}`);
        result = {
          outcome:
            error instanceof StartError
              ? { kind: 'FailedToStart', reason }
              : { kind: 'Failed', reason },
          finalText: '',
        };
      } finally {
        clearTimeout(timer);
      }
      return {
        outcome: result.outcome,
        finalText: capTail(result.finalText, FINAL_TEXT_LIMIT),
        transcript: capMiddle(transcript.join('\n\n'), TRANSCRIPT_LIMIT),
        durationMs: Math.round(performance.now() - started),
        usage,
      };
    },
  };
}
