/**
 * Big-export import benchmark: writes a deterministic export of about `--mb` megabytes — a Telegram
 * Desktop `result.json` or a WhatsApp `.txt` (iOS lines with seconds), one chat; or Nemori's own JSON
 * (`{"conversations": […]}`, chats of CHAT_MESSAGES messages one after the other) or JSONL (the lines
 * of JSONL_CHATS chats interleaved at random) — imports it through the API into a new, empty store on disk,
 * and prints one JSON object with messages/s, the CPU time it took, the peak RSS sampled during the
 * import, and the load average (the machine may be shared).
 *
 *   npm run bench:import -- [--mb 200] [--format telegram|whatsapp|json|jsonl] [--model none|tiny] [--dir DIR] [--dry-run]
 *
 * `--dry-run` runs the import's first pass only (read and validate the whole file, store nothing): the
 * readers' own memory at full size, without the disk and the hour a full import of 200 MB takes here.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEngine } from '../core/engine/open-engine.js';
import { benchEmbedder } from './embedder.js';
import { argValue, round } from './stats.js';
import { rng, syntheticConversation } from './synthetic.js';

const argv = process.argv.slice(2);
const targetBytes = Number(argValue(argv, 'mb') ?? 200) * 1024 * 1024;
const format = argValue(argv, 'format') ?? 'telegram';
const model = argValue(argv, 'model') ?? 'none';
const dryRun = argv.includes('--dry-run');
const dir = argValue(argv, 'dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'nemori-big-'));
const FILES: Record<string, string> = {
  telegram: 'result.json',
  whatsapp: 'WhatsApp Chat with Family.txt',
  json: 'chats.json',
  jsonl: 'chats.jsonl',
};
const fileName = FILES[format];
if (!fileName) throw new Error(`--format ${Object.keys(FILES).join('|')}, not ${format}`);
const file = path.join(dir, fileName);
/** Messages per chat in the Nemori JSON file: each chat is several parts long. */
const CHAT_MESSAGES = 50_000;
/** Chats whose lines the Nemori JSONL file interleaves. */
const JSONL_CHATS = 8;

interface Line {
  id: number;
  /** Unix seconds. */
  t: number;
  speaker: string;
  text: string;
}

/**
 * The chat's messages, one at a time: synthetic conversations, messages minutes apart, hours between
 * sessions. A WhatsApp line is a third of a Telegram entry, so its chat is busier (fewer long pauses):
 * 200 MB of it still ends before 2200, the last year an import takes.
 */
function* chat(): Generator<Line> {
  const r = rng(7);
  const pause = format === 'telegram' ? 0.05 : 0.01;
  let id = 0;
  let t = Date.UTC(2016, 0, 1) / 1000;
  for (let c = 0; ; c++) {
    for (const m of syntheticConversation(c, 50).messages) {
      t += r() < pause ? 3600 * (2 + Math.floor(r() * 30)) : 30 + Math.floor(r() * 300);
      yield { id: ++id, t, speaker: m.speaker, text: m.text };
    }
  }
}

function telegramEntry(m: Line): string {
  const entry = {
    id: m.id,
    type: 'message',
    date: new Date((m.t + 3600) * 1000).toISOString().slice(0, 19),
    date_unixtime: String(m.t),
    from: m.speaker,
    from_id: `user${m.speaker.length}${m.speaker.charCodeAt(0)}`,
    text: m.text,
    text_entities: [{ type: 'plain', text: m.text }],
  };
  return `${m.id > 1 ? ',\n' : ''}  ${JSON.stringify(entry)}`;
}

/** `[31/12/2023, 21:41:05] Emma: text`, the wall clock read in UTC (the import passes `timeZone: 'UTC'`). */
function whatsappLine(m: Line): string {
  const d = new Date(m.t * 1000).toISOString();
  return `[${d.slice(8, 10)}/${d.slice(5, 7)}/${d.slice(0, 4)}, ${d.slice(11, 19)}] ${m.speaker}: ${m.text}\n`;
}

/** A message in Nemori's own formats (README "Formats"). */
function nemoriMessage(m: Line): Record<string, unknown> {
  return { id: m.id, speaker: m.speaker, text: m.text, timestamp: new Date(m.t * 1000).toISOString() };
}

/** `{"conversations": [{"id", "title", "messages": [` … `]}, …]}`, a new chat every CHAT_MESSAGES messages. */
function jsonEntry(m: Line): string {
  const k = Math.floor((m.id - 1) / CHAT_MESSAGES);
  const chatStart = (m.id - 1) % CHAT_MESSAGES === 0;
  const head = chatStart ? `${k > 0 ? '\n ]},\n' : ''} {"id": "chat-${k}", "title": "Chat ${k}", "messages": [\n` : ',\n';
  return `${head}  ${JSON.stringify(nemoriMessage(m))}`;
}

const jsonlPick = rng(11);
/** One line of one of JSONL_CHATS chats, picked at random: their lines interleave. */
function jsonlLine(m: Line): string {
  const k = Math.floor(jsonlPick() * JSONL_CHATS);
  return `${JSON.stringify({ conversation: `chat-${k}`, conversation_title: `Chat ${k}`, ...nemoriMessage(m) })}\n`;
}

const WRITERS: Record<string, { head: string; entry: (m: Line) => string; tail: string }> = {
  telegram: {
    head: '{\n "name": "Family",\n "type": "private_group",\n "id": 777,\n "messages": [\n',
    entry: telegramEntry,
    tail: '\n ]\n}\n',
  },
  whatsapp: { head: '', entry: whatsappLine, tail: '' },
  json: { head: '{"conversations": [\n', entry: jsonEntry, tail: '\n ]}\n]}\n' },
  jsonl: { head: '', entry: jsonlLine, tail: '' },
};

/** Streams the export to disk so the generator itself stays small; returns how many messages it holds. */
function writeExport(): number {
  const writer = WRITERS[format]!;
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, writer.head);
  let written = 0;
  let count = 0;
  for (const m of chat()) {
    const line = writer.entry(m);
    fs.writeSync(fd, line);
    written += Buffer.byteLength(line);
    count = m.id;
    if (written >= targetBytes) break;
  }
  fs.writeSync(fd, writer.tail);
  fs.closeSync(fd);
  return count;
}

const generated = writeExport();
const { embedder, status } = model === 'none' ? { embedder: null, status: undefined } : await benchEmbedder(model as 'tiny' | 'product');
const home = path.join(dir, 'home');
// The store exists before the import, as in the app (made at its first start), and is made by another
// process: a new database's creation leaves some 400 MB of PGlite's garbage in the process until the
// next collection, which is not the import's memory.
execFileSync(process.execPath, [path.join(import.meta.dirname, '..', 'bin', 'nemori.mjs'), '--home', home, '--no-llm', '--json', 'stats'], {
  env: { ...process.env, NEMORI_ALLOW_DOWNLOAD: '0' },
  stdio: 'ignore',
});
const engine = await openEngine({ home, embedder, ...(status ? { embeddingStatus: status } : {}) });
// The sample with the highest RSS, whole: how much of it is V8's heap and how much the database's
// WebAssembly memory (`external` holds it) says where to look.
let peak = process.memoryUsage();
const sample = () => {
  const now = process.memoryUsage();
  if (now.rss > peak.rss) peak = now;
};
const sampler = setInterval(sample, 200);
const loadBefore = os.loadavg()[0]!;
const cpuBefore = process.cpuUsage();
const started = performance.now();
const out = await engine.call('importFiles', { ownerId: 'big', paths: [file], timeZone: 'UTC', dryRun });
const seconds = (performance.now() - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
clearInterval(sampler);
sample();
const stats = await engine.call('stats', { ownerId: 'big' });
// PGlite's WebAssembly memory at the end: it only grows, so this is its peak.
const databaseMemoryMB = round(engine.context.store.databaseMemoryBytes() / 1048576, 0);
await engine.close();

console.log(
  JSON.stringify(
    {
      format: out.format,
      fileMB: round(fs.statSync(file).size / 1048576, 1),
      messagesInFile: generated,
      dryRun,
      messagesRead: out.messages,
      messagesImported: out.files[0]?.messagesAdded ?? 0,
      episodes: stats.owners[0]?.episodes ?? 0,
      embeddingModel: embedder?.modelId ?? null,
      seconds: round(seconds, 1),
      // This process's CPU time (all its threads): steadier than the wall clock on a shared machine.
      cpuSeconds: round((cpu.user + cpu.system) / 1e6, 1),
      messagesPerSecond: round((dryRun ? out.messages : (out.files[0]?.messagesAdded ?? 0)) / seconds, 0),
      peakRssMB: round(peak.rss / 1048576, 0),
      atPeakMB: {
        heapUsed: round(peak.heapUsed / 1048576, 0),
        heapTotal: round(peak.heapTotal / 1048576, 0),
        external: round(peak.external / 1048576, 0),
      },
      databaseMemoryMB,
      loadAverage: { before: round(loadBefore, 2), after: round(os.loadavg()[0]!, 2) },
      errors: out.errors,
      dir,
    },
    null,
    2,
  ),
);
