/**
 * kill -9 while the episodes of one long chat (two parts of 5,000 messages) are built. Each window of
 * messages is committed before the next, so an import killed while building keeps the windows it
 * finished and the next one goes on from there; the import that finishes makes exactly the episodes of
 * an uninterrupted one. The first kill lands right after the first window is stored (the import reports it,
 * `--progress json`), later ones where the machine puts them: none loses or doubles anything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import type { ProgressEvent } from '../../core/engine/open-engine.js';
import { at, attempts, json, killedAfter, killedWhen, timed, whole } from './processes.js';

/** A long chat arrives in parts of this many messages, each stored in one transaction (core/ingest/parts.ts). */
const PART = 5000;
const MESSAGES = 2 * PART;

/** One chat of MESSAGES messages a minute apart, a topic per hundred (Nemori's JSON). */
function longChatFile(dir: string): string {
  const file = path.join(dir, 'long-chat.json');
  const t0 = Date.parse('2024-01-01T09:00:00Z');
  const topics = ['sailing', 'pottery', 'chess', 'violin', 'gardening', 'hiking', 'baking'];
  const words = Array.from({ length: 60 }, (_, w) => `word${(w * 37) % 101} thing${w % 13}`);
  const messages = Array.from({ length: MESSAGES }, (_, m) => ({
    id: `m${m}`,
    speaker: m % 2 ? 'Ana' : 'Ben',
    text: `${topics[Math.floor(m / 100) % topics.length]} again, note ${m}: ${words.slice(m % 7).join(' ')}`,
    timestamp: new Date(t0 + m * 60_000).toISOString(),
  }));
  fs.writeFileSync(file, JSON.stringify({ conversations: [{ id: 'long', messages }] }));
  return file;
}

describe('kill -9 while a long chat is built', { timeout: 1_800_000 }, () => {
  it('every killed import keeps the windows it built; the last one finishes them, none twice', async () => {
    const file = longChatFile(tempDir('nemori-long-chat-files-'));
    const scratch = tempDir('nemori-long-chat-scratch-');
    const importMs = await timed(scratch, 'import', file);
    const clean = await whole(scratch);
    expect(clean.messages).toBe(MESSAGES);

    // The first import is killed the moment it reports its first window of episodes stored (of two); the
    // full suite's next ones at random points, each going on from what the one before kept.
    const firstWindow = (s: ProgressEvent) => s.phase === 'episodes' && (s.facts?.episodes ?? 0) > 0 && s.done < s.total;
    const home = tempDir('nemori-long-chat-');
    let episodes = 0;
    const states: [number, number][] = [];
    for (let i = 0; i < attempts(4); i++) {
      const end =
        i === 0
          ? await killedWhen(home, ['import', file], firstWindow)
          : await killedAfter(home, ['import', file], at(importMs * 0.1, importMs * 0.6));
      const now = await whole(home);
      states.push([now.messages, now.episodes]);
      // Messages are stored a part at a time, each part whole.
      expect([0, PART, MESSAGES]).toContain(now.messages);
      expect(now.episodes).toBeLessThanOrEqual(clean.episodes);
      // Nothing built is lost: each import goes on from the windows the one before committed.
      expect(now.episodes).toBeGreaterThanOrEqual(episodes);
      episodes = now.episodes;
      if (i === 0) {
        // Killed while building, the import kept the window it had stored (in one transaction it kept nothing).
        expect(end).toBe('killed');
        expect(now.messages).toBeGreaterThanOrEqual(PART);
        expect(now.episodes).toBeGreaterThan(0);
        expect(now.episodes).toBeLessThan(clean.episodes);
      }
      if (end === 'finished') break;
    }
    await json(home, 'import', file);
    expect(await whole(home)).toMatchObject({ messages: MESSAGES, episodes: clean.episodes });
    console.log(JSON.stringify({ importMs, episodes: clean.episodes, states }));
  });
});
