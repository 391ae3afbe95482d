/**
 * A program feeding conversations to a data folder, for the holder tests:
 * `node --import tsx ingest-client.ts HOME LABEL CONVERSATIONS MESSAGES_EACH [resend-last]`.
 * Goes through connectOrOpenEngine like every front end (a client of the holder, or the holder itself
 * when there is none), sends each conversation with `ingestConversation`, and prints one line per
 * acknowledged call: `ok <n> <role> <holder pid>`. With `resend-last`, the last conversation is sent once
 * more at the end (a program retrying on its own), which must add nothing.
 */
import { connectOrOpenEngine } from '../../core/engine/connect.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { loopback } from '../../core/http/holder-transport.js';

const [home, label, conversations, each, resend] = process.argv.slice(2);
const engine = await connectOrOpenEngine({
  home: home!,
  transport: loopback,
  open: ({ lock }) => openEngine({ home: home!, embedder: null, lock }),
});
await engine.ready;
const t0 = Date.parse('2024-03-01T08:00:00Z');
const count = Number(conversations);
const sends = Array.from({ length: count }, (_, c) => c);
if (resend === 'resend-last') sends.push(count - 1);
for (const [n, c] of sends.entries()) {
  const messages = Array.from({ length: Number(each) }, (_, m) => ({
    id: `${label}-${c}-${m}`,
    speaker: m % 2 ? 'Ana' : 'Ben',
    text: `${label} conversation ${c} message ${m}: plans for the weekend hike number ${c}`,
    timestamp: new Date(t0 + c * 3_600_000 + m * 60_000).toISOString(),
  }));
  await engine.call('ingestConversation', { ownerId: 'shared', source: 'api', conversation: { id: `${label}-${c}`, messages } });
  process.stdout.write(`ok ${n + 1} ${engine.role} ${engine.holderPid}\n`);
}
await engine.close({ drain: true });
