import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { nemoriMcpTransport } from '../test/helpers/mcp.js';
import fs from 'node:fs';

const home = process.argv[2] ?? '/tmp/probe/home';
const client = new Client({ name: 'probe-companion', version: '1.0' });
await client.connect(nemoriMcpTransport(home));
const tools = await client.listTools();
if (process.argv.includes('--tools')) for (const t of tools.tools) console.log(t.name, JSON.stringify(t.inputSchema).slice(0, 600), '\n');
const call = async (name: string, args: Record<string, unknown>) => {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as { type: string; text: string }[]).map((c) => c.text).join('\n');
  console.log(`\n===== ${name} ${JSON.stringify(args).slice(0, 200)}\n${text}`);
  return r;
};
const script = JSON.parse(fs.readFileSync(process.argv[3]!, 'utf8')) as { tool: string; args: Record<string, unknown> }[];
for (const s of script) await call(s.tool, s.args);
await client.close();
