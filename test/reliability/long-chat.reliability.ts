/**
 * kill -9 while the episodes of one long chat (a 5,000-message part) are built. Each window of
 * messages is committed before the next, so an import killed while building keeps the windows it
 * finished and the next one goes on from there; the import that finishes makes exactly the episodes of
 * an uninterrupted one. Where a kill lands is up to the machine (the deterministic check of the resume
 * is test/episodes/build-windows.test.ts): this asserts that none loses or doubles anything, and
 * that kills late in the import left part of the chat built (in one transaction, as it once was, none did).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/engine.js';
import { at, attempts, json, killedAfter, timed, whole } from './processes.js';

const MESSAGES = 5000;

/** One chat of MESSAGES messages a minute apart, a topic per hundred (Nemori's JSON). */
function longChatFile(dir: string): string {
  const file = path.join(dir, 'long-chat.json');
  const t0 = Date.parse('2024-01-01T09:00:00Z');
  const topics = ['sailing', 'pottery', 'chess', 'violin', 'gardening', 'hiking', 'baking'];
  const words = Array.from({ length: 60 }, (_, w) => `word${(w * 37) % 101} thing${w % 13}`);
  const messages = Array.from({ length: MESSAGES }, (_, m) => ({
    id: `m${m}`,
    speaker: m % 2 ? 'Ana' : 'Ben',
    // Long lines: building (tokens, keywords, postings) outweighs storing, so most late kills land in it.
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

    const home = tempDir('nemori-long-chat-');
    let episodes = 0;
    const kills = { total: 0, partlyBuilt: 0 };
    const states: [number, number][] = [];
    for (let i = 0; i < attempts(4); i++) {
      // Late in a whole import: its messages stored (one transaction), its episodes being built. A chat of
      // two build windows commits its first past the middle of the import: earlier kills would find none built.
      const killed = (await killedAfter(home, ['import', file], at(importMs * 0.7, importMs * 0.95))) === 'killed';
      const now = await whole(home);
      states.push([now.messages, now.episodes]);
      expect([0, MESSAGES]).toContain(now.messages);
      expect(now.episodes).toBeLessThanOrEqual(clean.episodes);
      // Nothing built is lost: each import goes on from the windows the one before committed.
      expect(now.episodes).toBeGreaterThanOrEqual(episodes);
      episodes = now.episodes;
      if (!killed) break;
      kills.total++;
      if (episodes > 0 && episodes < clean.episodes) kills.partlyBuilt++;
    }
    // Killed while building, an import kept what it had built (in one transaction it kept nothing).
    if (kills.total > 0) expect(kills.partlyBuilt).toBeGreaterThan(0);
    await json(home, 'import', file);
    expect(await whole(home)).toMatchObject({ messages: MESSAGES, episodes: clean.episodes });
    console.log(JSON.stringify({ kills, importMs, episodes: clean.episodes, states }));
  });
});
