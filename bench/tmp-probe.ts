import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { nemoriMcpTransport } from '../test/helpers/mcp.js';
import fs from 'node:fs';
const client = new Client({ name: 'probe-companion', version: '1.0' });
await client.connect(nemoriMcpTransport(process.argv[2]!));
const script = JSON.parse(fs.readFileSync(process.argv[3]!, 'utf8')) as { tool: string; args: Record<string, unknown> }[];
for (const s of script) {
  const r = await client.callTool({ name: s.tool, arguments: s.args });
  console.log(`\n===== ${s.tool} ${JSON.stringify(s.args).slice(0, 120)}\n${(r.content as { text: string }[]).map((c) => c.text).join('\n')}`);
}
await client.close();
