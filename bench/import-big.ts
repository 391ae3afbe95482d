/**
 * Big-export import benchmark: writes a deterministic Telegram Desktop export (`result.json`, one chat)
 * of about `--mb` megabytes, imports it through the API into a fresh store on disk, and prints one JSON
 * object with messages/s and the peak RSS sampled during the import.
 *
 *   npx tsx bench/import-big.ts [--mb 200] [--model none|tiny] [--dir DIR]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openEngine } from '../core/engine/open-engine.js';
import { benchEmbedder } from './embedder.js';
import { argValue, round } from './stats.js';
import { rng, syntheticConversation } from './synthetic.js';

const argv = process.argv.slice(2);
const targetBytes = Number(argValue(argv, 'mb') ?? 200) * 1024 * 1024;
const model = argValue(argv, 'model') ?? 'none';
const dir = argValue(argv, 'dir') ?? fs.mkdtempSync(path.join(os.tmpdir(), 'nemori-big-'));
const file = path.join(dir, 'result.json');

/** Streams the export to disk so the generator itself stays small. */
function writeTelegramExport(): number {
  const fd = fs.openSync(file, 'w');
  fs.writeSync(fd, '{\n "name": "Family",\n "type": "private_group",\n "id": 777,\n "messages": [\n');
  const r = rng(7);
  let written = 0;
  let id = 0;
  let t = Date.UTC(2016, 0, 1) / 1000;
  for (let c = 0; written < targetBytes; c++) {
    for (const m of syntheticConversation(c, 50).messages) {
      t += r() < 0.05 ? 3600 * (2 + Math.floor(r() * 30)) : 30 + Math.floor(r() * 300);
      const local = new Date((t + 3600) * 1000).toISOString().slice(0, 19);
      const speaker = m.speaker;
      const entry = {
        id: ++id,
        type: 'message',
        date: local,
        date_unixtime: String(t),
        from: speaker,
        from_id: `user${speaker.length}${speaker.charCodeAt(0)}`,
        text: m.text,
        text_entities: [{ type: 'plain', text: m.text }],
      };
      const line = `${id > 1 ? ',\n' : ''}  ${JSON.stringify(entry)}`;
      fs.writeSync(fd, line);
      written += Buffer.byteLength(line);
      if (written >= targetBytes) break;
    }
  }
  fs.writeSync(fd, '\n ]\n}\n');
  fs.closeSync(fd);
  return id;
}

const generated = writeTelegramExport();
const { embedder, status } = model === 'none' ? { embedder: null, status: undefined } : await benchEmbedder(model as 'tiny' | 'product');
const engine = await openEngine({ home: path.join(dir, 'home'), embedder, ...(status ? { embeddingStatus: status } : {}) });
let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 200);
const started = performance.now();
const out = await engine.call('importFiles', { ownerId: 'big', paths: [file] });
const seconds = (performance.now() - started) / 1000;
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const stats = await engine.call('stats', { ownerId: 'big' });
await engine.close();

console.log(
  JSON.stringify(
    {
      format: out.format,
      fileMB: round(fs.statSync(file).size / 1048576, 1),
      messagesInFile: generated,
      messagesImported: out.files[0]?.messagesAdded ?? 0,
      episodes: stats.owners[0]?.episodes ?? 0,
      embeddingModel: embedder?.modelId ?? null,
      seconds: round(seconds, 1),
      messagesPerSecond: round((out.files[0]?.messagesAdded ?? 0) / seconds, 0),
      peakRssMB: round(peak / 1048576, 0),
      errors: out.errors,
      dir,
    },
    null,
    2,
  ),
);
