import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nemoriAt } from '../helpers/cli.js';
import { fixture, tempDir } from '../helpers/engine.js';

const nemori = nemoriAt;

describe('the nemori command', { timeout: 240_000 }, () => {
  it('lists its commands', async () => {
    const { code, stdout } = await nemori(tempDir(), '--help');
    expect(code).toBe(0);
    for (const c of ['import', 'search', 'episodes', 'rebuild', 'stats', 'health']) expect(stdout).toContain(c);
  });

  it('says its version and the store schema it writes', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as { version: string };
    const { code, stdout } = await nemori(tempDir(), '--version');
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(new RegExp(`^${pkg.version.replaceAll('.', '\\.')} \\(store schema \\d+\\)$`));
  });

  it('imports, re-imports idempotently, searches and reports as JSON', async () => {
    const home = tempDir();
    const file = fixture('import', 'two-days.json');
    const first = await nemori(home, '--json', 'import', file);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).files[0]).toMatchObject({ format: 'json', messagesAdded: 8, episodesCreated: 3, error: null });

    const again = await nemori(home, '--json', 'import', file);
    expect(JSON.parse(again.stdout).files[0]).toMatchObject({ messagesAdded: 0, episodesCreated: 0 });

    const found = await nemori(home, '--json', 'search', 'Lisbon', 'aquarium');
    const out = JSON.parse(found.stdout);
    expect(out.mode).toBe('bm25'); // no model here: hybrid falls back, with a warning
    expect(out.warnings[0]).toMatch(/keyword/);
    expect(out.results[0].text).toContain('Lisbon');
    expect(out.results[0].sources.map((s: { externalId: string }) => s.externalId)).toEqual(['m5', 'm6']);

    // Only conversations from elsewhere: nothing (all of these came from a Nemori JSON file).
    const elsewhere = JSON.parse((await nemori(home, '--json', 'search', 'Lisbon', '--from', 'whatsapp', 'telegram')).stdout);
    expect(elsewhere.results).toEqual([]);

    const shown = await nemori(home, 'episodes', 'show', out.results[0].id);
    expect(shown.stdout).toContain('Source messages (2)');

    const health = JSON.parse((await nemori(home, '--json', 'health')).stdout);
    expect(health).toMatchObject({ ok: true, database: { status: 'ok' }, embedding: { available: false } });
    expect(health.owners[0]).toMatchObject({
      ownerId: 'default',
      messages: 8,
      episodes: 3,
      sources: [{ source: 'nemori-json', conversations: 2 }],
    });
  });

  it('rejects a malformed file with its name and line, exits non-zero and changes nothing', async () => {
    const home = tempDir();
    await nemori(home, 'import', fixture('import', 'two-days.json'));
    const before = (await nemori(home, '--json', 'stats')).stdout;

    const bad = path.join(tempDir(), 'bad.jsonl');
    fs.writeFileSync(
      bad,
      [
        '{"conversation":"c9","speaker":"Zed","text":"first line is fine","timestamp":"2024-02-01T10:00:00Z"}',
        '{"conversation":"c9","speaker":"Zed","text":"no time here"}',
      ].join('\n'),
    );
    const r = await nemori(home, 'import', bad);
    expect(r.code).not.toBe(0);
    expect(r.stdout + r.stderr).toMatch(/bad\.jsonl: line 2: timestamp/);
    expect((await nemori(home, '--json', 'stats')).stdout).toBe(before);
  });

  it('reads numeric dates day or month first as --date-order says, when the file does not settle it', async () => {
    const home = tempDir();
    const file = path.join(tempDir(), 'WhatsApp Chat with Emma.txt');
    fs.writeFileSync(file, '03/04/2024, 09:15 - Emma: 清明节回老家吗？\n03/04/2024, 09:16 - Alex: Yes, by train.\n');
    const range = async (...flags: string[]) => {
      const r = await nemori(home, '--json', 'import', '--dry-run', '--tz', 'UTC', ...flags, file);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout).files[0].dateRange.from;
    };
    expect(await range('--date-order', 'dmy')).toBe('2024-04-03T09:15:00.000Z');
    expect(await range('--date-order', 'mdy')).toBe('2024-03-04T09:15:00.000Z');
    const wrong = await nemori(home, 'import', '--date-order', 'ymd', file);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/dmy, mdy/);
  });

  it('explains a store held by another process', async () => {
    const home = tempDir();
    await nemori(home, 'stats');
    fs.writeFileSync(
      path.join(home, 'db', 'nemori.lock'),
      JSON.stringify({ pid: process.pid, host: (await import('node:os')).hostname(), since: 'now' }),
    );
    const r = await nemori(home, 'stats');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`in use by another Nemori process (pid ${process.pid}`);
  });
});
