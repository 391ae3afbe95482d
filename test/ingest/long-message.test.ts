import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { MAX_TOLD_MESSAGE_CHARS } from '../../core/text/message-text.js';
import { tokenize } from '../../core/text/tokenize.js';
import { newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';

/** About `chars` characters of varied English and Chinese words, in one line. */
const VOCABULARY = 'the quick brown fox jumps over lazy dogs while running hiking 北京大学 研究 生命 科学 budget report';

function longText(chars: number): string {
  const words = VOCABULARY.split(' ');
  const out: string[] = [];
  let n = 0;
  for (let i = 0; n < chars; i++) {
    const w = words[(i * 7) % words.length]!;
    out.push(w);
    n += w.length + 1;
  }
  return out.join(' ');
}

/**
 * One long message used to stall an import for minutes and a 1 MB one never finished: ICU's word
 * segmenter is superlinear in the length of the string it is given. Text is now segmented in bounded
 * pieces, and an episode tells (indexes) at most MAX_TOLD_MESSAGE_CHARS of a message, which is stored whole.
 */
describe('a very long message', { timeout: 120_000 }, () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine.close();
  });

  it('is tokenised whole, the same words wherever the pieces are cut', () => {
    const text = longText(300_000);
    const terms = tokenize(text);
    expect(terms.length).toBeGreaterThan(40_000);
    // Every piece boundary falls between words: no word is cut in two.
    const known = new Set(tokenize(VOCABULARY));
    expect(terms.filter((t) => !known.has(t))).toEqual([]);
  });

  it('of 1 MB imports; the message is kept whole and the episode tells its beginning', async () => {
    const ownerId = newOwner();
    const big = `Zanzibar trip notes: ${longText(1_000_000)}`;
    const file = path.join(tempDir(), 'long.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        conversations: [
          {
            id: 'long',
            messages: [
              { id: 'a', speaker: 'Ana', text: 'here are my notes', timestamp: '2024-03-01T10:00:00Z' },
              { id: 'b', speaker: 'Ana', text: big, timestamp: '2024-03-01T10:01:00Z' },
            ],
          },
        ],
      }),
    );
    const report = await engine.call('importFiles', { ownerId, paths: [file] });
    expect(report.errors).toEqual([]);
    const found = await engine.call('search', { ownerId, query: 'Zanzibar', mode: 'bm25' });
    expect(found.results).toHaveLength(1);
    const shown = await engine.call('getEpisode', { ownerId, id: found.results[0]!.id });
    expect(shown.messages.find((m) => m.externalId === 'b')?.text).toBe(big);
    expect(shown.episode.content.length).toBeLessThan(MAX_TOLD_MESSAGE_CHARS + 1_000);
    expect(shown.episode.content).toMatch(/more characters in the message\]/);
  });
});
