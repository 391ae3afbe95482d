import { Option, type Command } from 'commander';
import type { OpOutput } from '../api/contract.js';
import type { LlmOverrides } from '../llm/config.js';
import type { RunOperation } from './run-operation.js';
import { quantity } from '../text/describe.js';

/** The LLM on the command line: global flags, `nemori llm test|usage`, and the renderings of LLM outputs. */

/** The global LLM options as commander parses them. */
export interface LlmFlags {
  llmBaseUrl?: string;
  llmModel?: string;
  llmApiKey?: string;
  /** false with --no-llm */
  llm?: boolean;
}

export function addLlmOptions(program: Command): Command {
  return program
    .addOption(
      new Option('--llm-base-url <url>', 'OpenAI-compatible endpoint (default with --llm-model: Ollama, http://127.0.0.1:11434/v1)').env(
        'NEMORI_LLM_BASE_URL',
      ),
    )
    .addOption(new Option('--llm-model <name>', 'LLM model; setting one switches the LLM on (e.g. qwen2.5:7b)').env('NEMORI_LLM_MODEL'))
    .addOption(
      new Option('--llm-api-key <key>', 'API key for a hosted endpoint (prefer NEMORI_LLM_API_KEY: flags show in process lists)').env(
        'NEMORI_LLM_API_KEY',
      ),
    )
    .option('--no-llm', 'do not use an LLM, even if one is configured');
}

export function llmOverrides(f: LlmFlags): LlmOverrides {
  return { baseUrl: f.llmBaseUrl, model: f.llmModel, apiKey: f.llmApiKey, off: f.llm === false };
}

export function renderLlmHealth(l: OpOutput<'health'>['llm']): string {
  if (!l.configured) return 'LLM: off (set NEMORI_LLM_MODEL or --llm-model to build episodes with an LLM)';
  const state = l.reachable
    ? `reachable${l.latencyMs !== null ? ` in ${l.latencyMs} ms` : ''}${l.modelListed === false ? ', but the model is not listed' : ''}`
    : `not reachable: ${l.error?.message ?? 'unknown reason'}`;
  return `LLM: ${l.model} at ${l.baseUrl} — ${state}`;
}

export function renderRebuildEpisodes(o: OpOutput<'rebuildEpisodes'>): string {
  const lines = [
    o.groups === 0 && o.pendingBuilt === 0
      ? 'Nothing to rebuild: no episode is marked for an LLM rebuild.'
      : `Rebuilt ${o.upgraded} of ${quantity(o.groups, 'group')} with the LLM: ${quantity(o.episodesReplaced, 'episode')} replaced by ${o.episodesCreated}${o.pendingBuilt ? `, ${o.pendingBuilt} built from pending messages` : ''} (${quantity(o.llmCalls, 'LLM call')}).`,
  ];
  if (o.failed)
    lines.push(
      `${quantity(o.failed, 'group')} failed and ${o.failed === 1 ? 'was' : 'were'} left as ${o.failed === 1 ? 'it was' : 'they were'}.`,
    );
  if (o.stoppedEarly) lines.push('The LLM stopped answering; the remaining groups were not tried.');
  for (const e of o.errors) lines.push(`  ${e}`);
  if (o.remaining)
    lines.push(
      `${quantity(o.remaining, 'episode')} still ${o.remaining === 1 ? 'needs' : 'need'} an LLM rebuild: run \`nemori rebuild --llm\` again later.`,
    );
  return lines.join('\n');
}

function renderLlmTest(o: OpOutput<'llmTest'>): string {
  if (!o.configured) return 'No LLM is configured (set NEMORI_LLM_MODEL, or pass --llm-model).';
  if (o.ok)
    return `✓ ${o.model} at ${o.baseUrl} answered in ${o.latencyMs} ms (${o.tokensIn === null ? '? tokens' : quantity(o.tokensIn, 'token')} in, ${o.tokensOut ?? '?'} out).`;
  return `✗ ${o.model} at ${o.baseUrl}: ${o.error?.message ?? 'failed'}`;
}

function renderLlmUsage(o: OpOutput<'llmUsage'>): string {
  const t = o.totals;
  if (t.requests === 0) return `No LLM requests recorded for ${o.ownerId}.`;
  const lines = [
    `${quantity(t.requests, 'LLM request')} for ${o.ownerId} (${t.failed} failed): ${quantity(t.tokensIn, 'token')} in, ${t.tokensOut} out, ${(t.latencyMs / 1000).toFixed(1)} s`,
  ];
  for (const b of o.byOperation)
    lines.push(
      `  ${b.operation.padEnd(20)} ${b.model}: ${quantity(b.requests, 'request')}, ${b.tokensIn} in / ${b.tokensOut} out, ${(b.latencyMs / 1000).toFixed(1)} s`,
    );
  return lines.join('\n');
}

export function addLlmCommands(program: Command, run: RunOperation, owner: () => Option): void {
  const llm = program.command('llm').description('the LLM that writes episodes: connection test, usage log');
  llm
    .command('test')
    .description('check that the configured LLM answers (one tiny JSON completion)')
    .action(async () => {
      await run('off', 'llmTest', {}, renderLlmTest);
    });
  llm
    .command('usage')
    .description('LLM requests, tokens and time recorded in the usage log')
    .addOption(owner())
    .option('--since <date>', 'only requests from this date on')
    .option('--machine', 'include machine-level calls (connection tests)')
    .action(async (o: { owner: string; since?: string; machine?: boolean }) => {
      await run('off', 'llmUsage', { ownerId: o.owner, since: o.since, includeMachineCalls: Boolean(o.machine), limit: 0 }, renderLlmUsage);
    });
}
