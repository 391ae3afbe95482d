import { Option, type Command } from 'commander';
import { clientSetup, MCP_CLIENTS, serverEntry, writeClientConfig, type McpClient } from '../companions/mcp-config.js';
import { resolveStartup } from '../engine/startup.js';
import type { RunOperation } from './run-operation.js';

/** `nemori load` and `nemori mcp …`: Nemori as a companion's memory. */

export interface CompanionCli {
  run: RunOperation;
  owner: () => Option;
  int: (v: string) => number;
  /** The global options: `--home` and `--json`. */
  global: () => { home?: string; json?: boolean };
}

export function addCompanionCommands(program: Command, cli: CompanionCli): void {
  program
    .command('load')
    .description(
      'what a companion is told at the start of a conversation: facts, recent episodes and memories related to --query, as Markdown within a token budget',
    )
    .argument('[opening...]', 'the opening message (as --query)')
    .option('--query <text>', 'the opening message, or what the conversation is about')
    .option('--budget <tokens>', 'at most this many tokens (about 1.3 per English word)', cli.int)
    .option('--now <date>', 'as of this moment (YYYY-MM-DD or ISO 8601; with an offset, days are on its calendar; default: now)')
    .addOption(cli.owner())
    .action(async (opening: string[], o: { query?: string; budget?: number; now?: string; owner: string }, command: Command) => {
      if (opening.length > 0 && o.query !== undefined) command.error('error: give the opening as words or with --query, not both');
      const query = o.query ?? (opening.length > 0 ? opening.join(' ') : undefined);
      await cli.run('auto', 'loadContext', { ownerId: o.owner, query, budgetTokens: o.budget, now: o.now }, (out) => out.markdown);
    });

  const mcp = program
    .command('mcp')
    .description(
      'serve your memory to an MCP client (Claude Desktop, Claude Code, Cursor, VS Code) over stdio; `mcp config` sets the client up',
    )
    .option('--read-only', 'only the tools that read memory (no add_memory, memorize or forget)')
    .action(async (o: { readOnly?: boolean }) => {
      // Loaded on demand: the other commands never pay for the MCP SDK.
      const { runMcpStdio } = await import('../mcp/stdio.js');
      const { loopback } = await import('../http/holder-transport.js');
      await runMcpStdio({ startup: resolveStartup(cli.global().home), readOnly: Boolean(o.readOnly), transport: loopback });
    });

  mcp
    .command('config')
    .description("print the client's entry for `nemori mcp`, or merge it into the client's configuration file (--write)")
    .addOption(new Option('--client <client>', 'which MCP client').choices(MCP_CLIENTS).makeOptionMandatory())
    .option('--write', "merge the entry into the client's configuration file (backed up first; other servers are kept)")
    .option('--config-file <path>', "the client's configuration file (default: its standard place on this system)")
    .option('--read-only', 'the client gets only the tools that read memory')
    .action((o: { client: McpClient; write?: boolean; configFile?: string; readOnly?: boolean }) => {
      const { home, json } = cli.global();
      const entry = serverEntry(o.client, { home, readOnly: Boolean(o.readOnly || mcp.opts<{ readOnly?: boolean }>().readOnly) });
      const setup = clientSetup(o.client, entry, o.configFile);
      const { file } = setup;
      if (!o.write) {
        if (json) {
          process.stdout.write(
            `${JSON.stringify({ client: o.client, file, key: setup.serversKey, entry, snippet: setup.snippet }, null, 2)}\n`,
          );
          return;
        }
        const claudeCode = setup.command ? `\nor run:\n  ${setup.command}\n` : '';
        process.stdout.write(
          `Add this to ${file} (under "${setup.serversKey}", beside any other servers):\n${JSON.stringify(setup.snippet, null, 2)}\n${claudeCode}\nor let Nemori do it: nemori mcp config --client ${o.client} --write\n`,
        );
        return;
      }
      const result = writeClientConfig(file, o.client, entry);
      if (json) {
        process.stdout.write(`${JSON.stringify({ client: o.client, ...result, entry }, null, 2)}\n`);
        return;
      }
      const said = {
        created: `Created ${file} with the nemori server.`,
        updated: `Set the nemori server in ${file} (the previous file is at ${result.backup}).`,
        unchanged: `${file} already has this nemori server; nothing changed.`,
      }[result.action];
      process.stdout.write(`${said}\nRestart ${o.client} to load it.\n`);
    });
}
