/**
 * Every way text enters memory passes the privacy filter: live turns, conversations sent by a program,
 * episodes written by hand and facts. The answers say how many secrets were replaced, never which.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { SECRET_LINES } from './secrets.js';

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine();
});
afterAll(async () => {
  await engine.close();
});

const secret = (kind: string) => SECRET_LINES.find((l) => l.kind === kind)!;

async function messageTexts(ownerId: string): Promise<string[]> {
  await engine.idle();
  const { episodes } = await engine.call('listEpisodes', { ownerId, limit: 100 });
  const all = await Promise.all(episodes.map((e) => engine.call('getEpisode', { ownerId, id: e.id })));
  return all.flatMap((d) => d.messages.map((m) => m.text));
}

describe('the privacy filter at every entrance', () => {
  it('addMemory stores the placeholder and says how many secrets it replaced', async () => {
    const ownerId = newOwner();
    const key = secret('openai-key');
    const out = await engine.call('addMemory', {
      ownerId,
      messages: [
        { speaker: 'me', role: 'user', text: key.text, time: '2024-05-01T09:00:00+08:00' },
        { speaker: 'me', role: 'user', text: '家里路由器的密码是猫猫love2024，记住了', time: '2024-05-01T09:01:00+08:00' },
      ],
      end: true,
    });
    expect(out.redacted).toBe(2);
    const texts = await messageTexts(ownerId);
    expect(texts).toEqual([key.text.replace(key.secret, key.placeholder), '家里路由器的密码是[secret: password]，记住了']);
  });

  it('ingestConversation counts what it replaced', async () => {
    const ownerId = newOwner();
    const card = secret('card-number');
    const out = await engine.call('ingestConversation', {
      ownerId,
      conversation: { id: 'c1', messages: [{ speaker: 'a', text: card.text, timestamp: '2024-05-01T09:00:00Z' }] },
    });
    expect(out.redacted).toBe(1);
    expect(await messageTexts(ownerId)).toEqual([card.text.replace(card.secret, card.placeholder)]);
  });

  it('episodes written or edited by hand, and facts, keep no secret', async () => {
    const ownerId = newOwner();
    const jwt = secret('jwt');
    const e = await engine.call('createEpisode', {
      ownerId,
      episode: { title: 'Login', content: jwt.text, summary: 'a token', start: '2024-05-01T09:00:00Z' },
    });
    expect(e.content).toBe(jwt.text.replace(jwt.secret, jwt.placeholder));
    const edited = await engine.call('updateEpisode', { ownerId, id: e.id, patch: { summary: 'my password is hunter2xyz!' } });
    expect(edited.summary).toBe('my password is [secret: password]');

    const gh = secret('github-token');
    const m = await engine.call('memorize', { ownerId, value: gh.text });
    expect(m.fact.value).toBe(gh.text.replace(gh.secret, gh.placeholder));
    expect(m.key).not.toContain(gh.secret);
    const named = await engine.call('upsertKnowledge', { ownerId, key: 'account:gmail password', value: 'plainwords' });
    expect(named.fact.value).toBe('[secret: password]');
  });

  it('a kind switched off in the settings is kept; the settings show every kind', async () => {
    const ownerId = newOwner();
    const card = secret('card-number');
    const before = await engine.call('getEngineSettings', {});
    expect(before.privacy).toMatchObject({ enabled: true, kinds: { 'card-number': true, password: true }, patterns: [] });
    const after = await engine.call('setEngineSettings', {
      privacy: { kinds: { 'card-number': false }, patterns: [{ name: 'employee id', regex: 'EMP-\\d{6}' }] },
    });
    expect(after.privacy.kinds).toMatchObject({ 'card-number': false, password: true });
    try {
      const out = await engine.call('addMemory', {
        ownerId,
        messages: [{ speaker: 'me', text: `${card.text}, badge EMP-123456`, time: '2024-05-01T09:00:00Z' }],
        end: true,
      });
      expect(out.redacted).toBe(1);
      expect(await messageTexts(ownerId)).toEqual([`${card.text}, badge [secret: employee id]`]);
    } finally {
      await engine.call('setEngineSettings', { privacy: { kinds: { 'card-number': true }, patterns: [] } });
    }
  });
});
