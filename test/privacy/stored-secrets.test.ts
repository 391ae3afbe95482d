/**
 * Secrets a memory already holds because the rules of their day let them through (an older Nemori, the
 * filter or a kind switched off then, a pattern added since) are taken out by `nemori rebuild` and, once
 * per change of the rules, by the background job: messages, conversation titles and episodes show the
 * placeholders, search no longer finds the secrets, no file of the data folder holds them, and the same
 * export or turns sent again are found again instead of stored twice.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openEmbedder } from '../../core/embed/index.js';
import { openEngine, type Engine } from '../../core/engine/open-engine.js';
import { graphPayload } from '../../core/episodes/llm-builder.js';
import { retellEpisodes } from '../../core/episodes/retell.js';
import { backupsToFilter, filterBackups } from '../../core/forgetting/backup-secrets.js';
import { scrubWithNewRules } from '../../core/forgetting/secrets.js';
import { Store } from '../../core/store/store.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { tempDir } from '../helpers/engine.js';
import { SECRET_LINES } from './secrets.js';

const OWNER = 'me';
const root = tempDir('nemori-stored-secrets-');
const home = path.join(root, 'home');
let engine: Engine | undefined;

const password = SECRET_LINES.find((l) => l.kind === 'password')!;
const card = SECRET_LINES.find((l) => l.kind === 'card-number')!;
const TURN = { speaker: 'Ana', role: 'user' as const, text: `by the way ${password.text}`, time: '2024-05-07T10:00:00+08:00' };

function chatFile(): string {
  const file = path.join(root, 'chat.json');
  const messages = SECRET_LINES.map((l, n) => ({
    id: `m-${n}`,
    speaker: n % 2 ? 'Bo' : 'Ana',
    role: n % 2 ? 'other' : 'user',
    text: l.text,
    timestamp: new Date(Date.parse('2024-05-06T09:00:00Z') + n * 60_000).toISOString(),
  }));
  fs.writeFileSync(file, JSON.stringify({ conversations: [{ id: 'c1', title: `Accounts ${card.secret}`, messages }] }));
  return file;
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

const secretsIn = (bytes: Buffer) => SECRET_LINES.filter((l) => bytes.includes(Buffer.from(l.secret, 'utf8'))).map((l) => l.kind);
const leaks = () => filesUnder(home).flatMap((f) => secretsIn(fs.readFileSync(f)).map((kind) => `${kind} in ${path.relative(home, f)}`));

beforeAll(async () => {
  engine = await openEngine({ home, embedder: await openEmbedder(tinyModelOptions()) });
});
afterAll(async () => {
  await engine?.close();
});

describe('secrets stored before the rules knew them', () => {
  it('are replaced everywhere by `rebuild`, and the same export and turns are found again, not stored twice', async () => {
    const e = engine!;
    // What an older Nemori without the filter stored.
    await e.call('setEngineSettings', { privacy: { enabled: false } });
    const file = chatFile();
    expect((await e.call('importFiles', { ownerId: OWNER, paths: [file] })).redacted).toBe(0);
    await e.call('addMemory', { ownerId: OWNER, conversationId: 'live', messages: [TURN], end: true });
    const hand = await e.call('createEpisode', {
      ownerId: OWNER,
      episode: {
        title: `PIN: ${password.secret}`,
        content: `Ana said ${password.text}.`,
        summary: password.text,
        start: '2024-05-08T09:00:00Z',
      },
    });
    await e.call('memorize', { ownerId: OWNER, value: `Ana's ${password.text}` });
    await e.call('upsertKnowledge', { ownerId: OWNER, key: 'account:bank', value: `card ${card.secret}` });
    await e.call('upsertKnowledge', { ownerId: OWNER, key: 'account:bank', value: `the new card is ${card.secret}, the old one expired` });
    const found = (await e.call('search', { ownerId: OWNER, query: password.secret, mode: 'bm25' })).results.map((r) => r.id);
    expect(found).toContain(hand.id);

    // Backups of that memory, one of them encrypted.
    const plain = await e.call('backup', {});
    const sealed = await e.call('backup', { passphrase: 'correct horse battery' });
    expect(secretsIn(gunzipSync(fs.readFileSync(plain.file)))).not.toEqual([]);
    const listed = async () => (await e.call('listBackups', {})).backups.map((b) => [b.file, b.at]);
    const backupsBefore = await listed();
    expect(backupsBefore.map(([file]) => file)).toEqual([sealed.file, plain.file]);

    await e.call('setEngineSettings', { privacy: { enabled: true } });
    const rebuilt = await e.call('rebuildIndexes', { ownerId: OWNER });
    expect(rebuilt.secrets).toBeGreaterThanOrEqual(SECRET_LINES.length + 2);
    // The plain backup is filtered in place, under its name and time; the encrypted one cannot be opened.
    expect(rebuilt.backups).toEqual({ filtered: 1, sealed: 1 });
    expect(await listed()).toEqual(backupsBefore);
    expect(secretsIn(gunzipSync(fs.readFileSync(plain.file)))).toEqual([]);
    // It opens as the memory it was, with the placeholders.
    const dir = path.join(root, 'restored');
    await Store.unpackBackup(dir, plain.file);
    const backupStore = await Store.open({ dir });
    try {
      const texts = (await backupStore.read.privacy.messagePage(OWNER, null, 100)).map((m) => m.text);
      expect(texts).toContain(`by the way ${password.text.replace(password.secret, password.placeholder)}`);
      expect(texts).toHaveLength(SECRET_LINES.length + 1);
    } finally {
      await backupStore.close();
    }

    const { episodes } = await e.call('listEpisodes', { ownerId: OWNER, limit: 100 });
    const details = await Promise.all(episodes.map((x) => e.call('getEpisode', { ownerId: OWNER, id: x.id })));
    const texts = details.flatMap((d) => d.messages.map((m) => m.text));
    for (const l of SECRET_LINES) expect(texts).toContain(l.text.replace(l.secret, l.placeholder));
    expect(texts).toContain(`by the way ${password.text.replace(password.secret, password.placeholder)}`);
    const mine = details.find((d) => d.episode.id === hand.id)!.episode;
    expect(mine).toMatchObject({ title: 'PIN: [secret: password]', summary: password.text.replace(password.secret, password.placeholder) });
    // The episode written by hand keeps being one nobody but its writer edited.
    expect(mine.updatedAt).toBe(hand.updatedAt);
    const facts = (await e.call('listKnowledge', { ownerId: OWNER })).facts;
    // A fact its key names as a password keeps no value, as when it is written with the filter on.
    expect(facts.map((f) => f.value).sort()).toEqual(
      [password.placeholder, `the new card is ${card.placeholder}, the old one expired`].sort(),
    );
    const bank = await e.call('getKnowledge', { ownerId: OWNER, key: 'account:bank' });
    expect(bank.timeline.map((v) => v.value)).toEqual([
      `card ${card.placeholder}`,
      `the new card is ${card.placeholder}, the old one expired`,
    ]);
    for (const query of [password.secret, card.secret]) {
      const results = (await e.call('search', { ownerId: OWNER, query, mode: 'bm25' })).results;
      expect(
        results.map((r) => r.title),
        query,
      ).toEqual([]);
    }
    // Found by meaning with its new words, by the placeholder by keyword.
    expect((await e.call('search', { ownerId: OWNER, query: 'PIN secret password', mode: 'hybrid' })).results.map((r) => r.id)).toContain(
      hand.id,
    );

    // The same export and the same turn again: nothing new.
    const again = await e.call('importFiles', { ownerId: OWNER, paths: [file] });
    expect(again.files[0]).toMatchObject({ messagesAdded: 0 });
    const turn = await e.call('addMemory', { ownerId: OWNER, conversationId: 'live', messages: [TURN] });
    expect(turn.stored).toBe(0);
    expect(await e.call('rebuildIndexes', { ownerId: OWNER })).toMatchObject({ secrets: 0, backups: { filtered: 0, sealed: 0 } });

    await e.close();
    engine = undefined;
    expect(leaks()).toEqual([]);
  });

  it('are taken out once per change of the rules by the background job, for every owner', async () => {
    const e = (engine = await openEngine({ home, embedder: await openEmbedder(tinyModelOptions()) }));
    const ctx = e.context;
    await scrubWithNewRules(ctx);
    // Another owner's, stored with a pattern nobody had set yet.
    await e.call('addMemory', {
      ownerId: 'other',
      messages: [{ speaker: 'Bo', text: 'my badge is EMP-204518 and the old one was EMP-204519, do not share' }],
      end: true,
    });
    // Two facts whose keys hold a secret each: filtered, both keys read the same.
    await e.call('upsertKnowledge', { ownerId: 'other', key: 'badge:EMP-204518', value: 'in use' });
    await e.call('upsertKnowledge', { ownerId: 'other', key: 'badge:EMP-204519', value: 'expired' });
    // What an LLM drew from it: the knowledge graph's payload and its entities, aliases and predicates.
    const drawn = await e.call('createEpisode', {
      ownerId: 'other',
      episode: { title: 'Badges', content: 'Bo showed the badges.', summary: '', start: '2024-05-09T09:00:00Z' },
    });
    const graph = graphPayload(
      {
        entities: [
          { name: 'Bo', type: 'PERSON', aliases: [], role: null },
          { name: 'EMP-204518', type: 'OTHER', aliases: ['badge EMP-204518'], role: null },
        ],
        relationships: [['Bo', 'holds EMP-204518', 'EMP-204518']],
      },
      [],
    );
    await ctx.store.transaction(async (r) => {
      await r.graph.setEpisodeGraph('other', drawn.id, graph, new Date());
      await r.episodes.update(
        'other',
        drawn.id,
        { structuredData: { knowledgeGraph: { entities: [{ name: 'EMP-204518' }] } } },
        new Date(),
      );
    });
    expect(await scrubWithNewRules(ctx)).toBeNull();
    await e.call('setEngineSettings', { privacy: { patterns: [{ name: 'employee id', regex: 'EMP-\\d{6}' }] } });
    const scrubbed = await scrubWithNewRules(ctx);
    expect(scrubbed).toMatchObject({ messages: 1, conversations: 0, episodes: 2, facts: 2 });
    expect(scrubbed!.secrets).toBeGreaterThanOrEqual(4);
    expect(await scrubWithNewRules(ctx)).toBeNull();
    const drawnNow = await e.call('getEpisode', { ownerId: 'other', id: drawn.id });
    const graphNow = await e.call('episodeGraph', { ownerId: 'other', id: drawn.id });
    expect(JSON.stringify([drawnNow.episode.structuredData, graphNow])).not.toMatch(/EMP-20451/i);
    expect(graphNow.entities.map((x) => [x.name, x.aliases])).toContainEqual(['[secret: employee id]', ['badge [secret: employee id]']]);
    expect(graphNow.relationships.map((x) => x.predicate)).toEqual(['HOLDS_SECRET_EMPLOYEE_ID']);
    // Kept apart under the key the filter gives at entry, the second numbered on.
    const badges = (await e.call('listKnowledge', { ownerId: 'other' })).facts;
    expect(badges.map((f) => f.key).sort()).toEqual(['badge:secret:_employee_id', 'badge:secret:_employee_id_2']);
    expect(badges.map((f) => f.value).sort()).toEqual(['expired', 'in use']);
    expect(new Set(badges.map((f) => f.label))).toEqual(new Set(['[secret: employee id]']));
    // The job then tells again the episodes the heuristic told from them: their titles and keywords too.
    expect(await retellEpisodes(ctx, 'other')).toBe(1);
    const [episode] = (await e.call('listEpisodes', { ownerId: 'other', limit: 5 })).episodes;
    expect(episode!.summary).toContain('[secret: employee id]');
    expect((await e.call('search', { ownerId: 'other', query: 'EMP-204518', mode: 'bm25' })).results).toEqual([]);
  });

  it('are taken out in the background of a host as soon as the person adds a pattern', async () => {
    await engine?.close();
    // The first pass of the job waits an hour: the change of the rules does not.
    const e = (engine = await openEngine({
      home,
      embedder: null,
      scheduleForgetting: true,
      config: { segment: { retellAfterSeconds: 3600 } },
    }));
    await e.call('addMemory', {
      ownerId: 'other',
      messages: [{ speaker: 'Bo', text: 'the locker code is LCK-88213, top row' }],
      end: true,
    });
    // A host builds the episode in the background.
    await vi.waitFor(
      async () => expect((await e.call('search', { ownerId: 'other', query: 'LCK-88213', mode: 'bm25' })).results).toHaveLength(1),
      {
        timeout: 20_000,
        interval: 50,
      },
    );
    const backup = await e.call('backup', {});
    await e.call('setEngineSettings', { privacy: { patterns: [{ name: 'locker code', regex: 'LCK-\\d{5}' }] } });
    await vi.waitFor(
      async () => expect((await e.call('search', { ownerId: 'other', query: 'LCK-88213', mode: 'bm25' })).results).toEqual([]),
      { timeout: 20_000, interval: 50 },
    );
    // Then the backup made before.
    await vi.waitFor(() => expect(gunzipSync(fs.readFileSync(backup.file)).includes('LCK-88213')).toBe(false), {
      timeout: 20_000,
      interval: 50,
    });
    const [episode] = (await e.call('listEpisodes', { ownerId: 'other', limit: 1 })).episodes;
    expect(episode!.summary).toContain('[secret: locker code]');
  });

  it('goes on filtering backups at the next start when a filtering stopped part way', async () => {
    await engine?.close();
    const e = (engine = await openEngine({ home, embedder: null }));
    const ctx = e.context;
    await e.call('addMemory', { ownerId: 'other', messages: [{ speaker: 'Bo', text: 'the gate code is GTE-55102' }], end: true });
    const backup = await e.call('backup', {});
    // What a filtering killed part way leaves beside the backups: it holds what it was taking out.
    const left = path.join(path.dirname(backup.file), '.filtering-x1');
    fs.mkdirSync(left);
    fs.copyFileSync(backup.file, path.join(left, 'copy'));
    await e.call('setEngineSettings', { privacy: { patterns: [{ name: 'gate code', regex: 'GTE-\\d{5}' }] } });
    expect((await scrubWithNewRules(ctx))!.secrets).toBeGreaterThan(0);
    await backupsToFilter(ctx, new Date());
    const stopped = new AbortController();
    stopped.abort();
    expect(await filterBackups(ctx, { signal: stopped.signal })).toEqual({ filtered: 0, sealed: 0 });
    expect(gunzipSync(fs.readFileSync(backup.file)).includes('GTE-55102')).toBe(true);
    // The next pass (the next start's) finds them still to filter; the encrypted backup of the first test is counted again.
    expect(await filterBackups(ctx)).toEqual({ filtered: 1, sealed: 1 });
    expect(gunzipSync(fs.readFileSync(backup.file)).includes('GTE-55102')).toBe(false);
    expect(fs.existsSync(left)).toBe(false);
    expect(await filterBackups(ctx)).toBeNull();
  });
});
