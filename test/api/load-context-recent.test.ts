/**
 * loadContext's "Recently" with and without an opening message: with one, only episodes of the last two
 * weeks are shown for being recent (older ones must answer the query to be shown, in "Related"); without
 * one, or when nothing answers it, the latest episodes are all there is to open with, however old.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';

describe('loadContext: Recently', () => {
  let engine: Engine;
  const ownerId = newOwner('recent');
  const talk = (id: string, day: string, text: string) => ({
    id,
    messages: [
      { id: `${id}-1`, speaker: 'Alice', text, timestamp: `${day}T09:00:00Z` },
      { id: `${id}-2`, speaker: 'Bob', text: 'Tell me more about it.', timestamp: `${day}T09:01:00Z` },
    ],
  });

  beforeAll(async () => {
    engine = await openMemoryEngine();
    await engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: talk('old', '2024-01-02', 'I repainted the garden shed a deep green colour.'),
    });
    await engine.call('ingestConversation', {
      ownerId,
      source: 'api',
      conversation: talk('marathon', '2024-03-10', 'Training for the Berlin marathon, my left knee hurts after long runs.'),
    });
  });
  afterAll(async () => {
    await engine.close();
  });

  it('with a query, leaves out episodes older than two weeks that do not answer it', async () => {
    const out = await engine.call('loadContext', {
      ownerId,
      query: 'How is the knee after the marathon training?',
      now: '2024-06-01T10:00:00Z',
    });
    expect(out.sections.recent).toEqual([]);
    expect(out.markdown).not.toContain('### Recently');
    expect(JSON.stringify(out.sections.related)).toContain('Berlin marathon');
    expect(JSON.stringify(out.sections.related)).not.toContain('garden shed');
  });

  it('with a query, shows the episodes of the last two weeks', async () => {
    const out = await engine.call('loadContext', {
      ownerId,
      query: 'How is the knee after the marathon training?',
      now: '2024-01-10T10:00:00Z',
    });
    expect(out.sections.recent.map((e) => e.when.split(', ').slice(0, 2).join(', '))).toEqual(['Tuesday, 2 January 2024']);
  });

  it('with a query nothing answers ("hi" after months of silence), shows the latest episodes however old', async () => {
    const out = await engine.call('loadContext', { ownerId, query: 'hi', now: '2024-06-01T10:00:00Z' });
    expect(out.sections.related).toEqual([]);
    expect(out.sections.recent.map((e) => e.when.split(', ').slice(0, 2).join(', '))).toEqual([
      'Sunday, 10 March 2024',
      'Tuesday, 2 January 2024',
    ]);
  });

  it('without a query, shows the latest episodes however old', async () => {
    const out = await engine.call('loadContext', { ownerId, now: '2024-06-01T10:00:00Z' });
    expect(out.sections.recent.map((e) => e.when.split(', ').slice(0, 2).join(', '))).toEqual([
      'Sunday, 10 March 2024',
      'Tuesday, 2 January 2024',
    ]);
  });
});
