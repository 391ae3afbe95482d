/**
 * Nothing acknowledged is lost: a real process holding an engine is killed with SIGKILL right after
 * `addMemory` acknowledged its turns; the next engine on the same data folder finds every turn and
 * rebuilds the open tail in the background, by itself.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import type { OpOutput } from '../../core/api/contract.js';
import { openEmbedder } from '../../core/embed/index.js';
import { openEngine, type Engine } from '../../core/engine/open-engine.js';
import { addTurns } from '../../core/ingest/live.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { tempDir } from '../helpers/engine.js';

const MIN = 60_000;
const child = path.join(import.meta.dirname, 'fixtures', 'live-child.ts');

/** Two days of turns, four a day, two minutes apart. */
function twoDays(): { id: string; speaker: string; text: string; time: string }[] {
  const t0 = Date.parse('2024-06-03T20:00:00+02:00');
  const texts = [
    'The violin lesson moved to Wednesday.',
    'Is Maya still practising the Bach partita?',
    'Every evening, twenty minutes.',
    'Tell her the teacher was impressed.',
    'We found a flat near the river.',
    'How many rooms does the flat have?',
    'Three rooms and a balcony over the river.',
    'We sign the lease on Monday.',
  ];
  return texts.map((text, i) => ({
    id: `t${i}`,
    speaker: i % 2 ? 'Sam' : 'Rui',
    text,
    time: new Date(t0 + Math.floor(i / 4) * 24 * 60 * MIN + (i % 4) * 2 * MIN).toISOString(),
  }));
}

async function episodes(e: Engine, ownerId: string) {
  return (await e.call('listEpisodes', { ownerId, limit: 100 })).episodes.sort((a, b) => a.start.localeCompare(b.start));
}

describe('live memory survives a crash', { timeout: 180_000 }, () => {
  it('kill -9 of a process right after its turns were acknowledged: reopened, every turn is there and built', async () => {
    const home = tempDir('nemori-live-crash-');
    const turns = twoDays();
    const turnsFile = path.join(home, 'turns.json');
    fs.writeFileSync(turnsFile, JSON.stringify(turns));
    const proc = spawn(process.execPath, ['--import', 'tsx', child, home, turnsFile], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => proc.on('exit', (_code, signal) => resolve(signal)));
    const acks: OpOutput<'addMemory'>[] = [];
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: proc.stdout }).on('line', (line) => {
        if (line.startsWith('ack ')) acks.push(JSON.parse(line.slice(4)) as OpOutput<'addMemory'>);
        if (line === 'done') {
          // Killed at once: the background building of the last turns has had no time to finish.
          proc.kill('SIGKILL');
          resolve();
        }
      });
      proc.once('exit', () => reject(new Error(`the child exited before its turns were acknowledged: ${stderr}`)));
    });
    expect(await exited).toBe('SIGKILL');
    expect(acks).toHaveLength(turns.length);
    const acknowledged = acks.flatMap((a) => a.messageIds);

    // Reopened five minutes after the last turn (the dead process's lock is taken over).
    let now = Date.parse(turns.at(-1)!.time) + 5 * MIN;
    const engine = await openEngine({ home, embedder: await openEmbedder(tinyModelOptions()), clock: { now: () => new Date(now) } });
    try {
      await engine.idle();
      let eps = await episodes(engine, 'live');
      // The first day was closed by the gap; the second is the open tail, rebuilt and findable.
      expect(eps.map((e) => [e.processingStatus, e.messageIds.length])).toEqual([
        ['ready', 4],
        ['open', 4],
      ]);
      expect(eps.flatMap((e) => e.messageIds)).toEqual(acknowledged);
      const found = await engine.call('search', { ownerId: 'live', query: 'lease on Monday', mode: 'bm25' });
      expect(found.results[0]?.sources.map((s) => s.externalId)).toEqual(['t4', 't5', 't6', 't7']);

      // Thirty minutes after the last turn the tail closes by itself.
      now += 25 * MIN;
      await engine.idle();
      eps = await episodes(engine, 'live');
      expect(eps.map((e) => e.processingStatus)).toEqual(['ready', 'ready']);
      expect(eps.flatMap((e) => e.messageIds)).toEqual(acknowledged);
      expect((await engine.call('stats', { ownerId: 'live' })).owners[0]).toMatchObject({ messages: turns.length, episodes: 2 });
    } finally {
      await engine.close();
    }
  });

  it('turns stored but never built (the process died before its background step) are built at the next open', async () => {
    const home = tempDir('nemori-live-pending-');
    const turns = twoDays();
    const now = Date.parse(turns.at(-1)!.time);
    const clock = { now: () => new Date(now) };
    const first = await openEngine({ home, embedder: null, clock });
    let conversationId: string | undefined;
    try {
      // The use case alone, without the job behind addMemory: exactly what a crash leaves.
      for (const t of turns)
        conversationId = (await addTurns(first.context, { ownerId: 'live', conversationId, source: 'companion', messages: [t] }))
          .conversationId;
      expect(await episodes(first, 'live')).toEqual([]);
    } finally {
      await first.close();
    }
    const engine = await openEngine({ home, embedder: null, clock });
    try {
      await engine.idle();
      expect((await episodes(engine, 'live')).map((e) => [e.processingStatus, e.messageIds.length])).toEqual([
        ['ready', 4],
        ['open', 4],
      ]);
      // The reopened engine knows the tail: the next turn joins it, `end` closes it.
      await engine.call('addMemory', {
        ownerId: 'live',
        conversationId,
        messages: [{ speaker: 'Rui', text: 'And the cat comes with us.' }],
        end: true,
      });
      await engine.idle();
      expect((await episodes(engine, 'live')).map((e) => [e.processingStatus, e.messageIds.length])).toEqual([
        ['ready', 4],
        ['ready', 5],
      ]);
    } finally {
      await engine.close();
    }
  });
});
