import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nemoriAt } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

/** Every file and folder under `dir` with its permission bits. */
function modes(dir: string): { p: string; dir: boolean; mode: number }[] {
  return fs.readdirSync(dir, { recursive: true, withFileTypes: false }).map((rel) => {
    const p = path.join(dir, String(rel));
    const st = fs.lstatSync(p);
    return { p, dir: st.isDirectory(), mode: st.mode & 0o777 };
  });
}

/** Files under `dir` whose bytes contain `needle` (UTF-8). */
function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  return modes(dir)
    .filter((f) => !f.dir && fs.readFileSync(f.p).includes(bytes))
    .map((f) => path.relative(dir, f.p));
}

function chat(dir: string): string {
  const file = path.join(dir, 'chat.json');
  const t0 = Date.parse('2024-05-01T09:00:00Z');
  const say = (i: number, speaker: string, text: string) => ({
    id: `m${i}`,
    speaker,
    text,
    timestamp: new Date(t0 + i * 60_000).toISOString(),
  });
  fs.writeFileSync(
    file,
    JSON.stringify({
      conversations: [
        { id: 'a', messages: [say(0, 'Ana', 'Quixotelmo called about the boat'), say(1, 'Ben', 'Quixotelmo always calls on Sundays')] },
        { id: 'b', messages: [say(100, 'Ana', 'the garden needs water'), say(101, 'Ben', 'I will water the tomatoes')] },
      ],
    }),
  );
  return file;
}

/**
 * A new store used to be world-readable (0644/0666 files, message text in the WAL, 0755 folders,
 * 0644 backups), and "forget about" left the deleted text in table files and the WAL.
 */
describe('the data folder is private, and forgotten text is gone from it', { timeout: 180_000 }, () => {
  it('keeps every file and backup owner-only, whatever the umask', async () => {
    const home = tempDir('nemori-private-');
    fs.chmodSync(home, 0o755);
    const previous = process.umask(0o022);
    try {
      expect((await nemoriAt(home, '--no-llm', 'import', chat(tempDir()))).code).toBe(0);
      expect((await nemoriAt(home, '--no-llm', 'data', 'backup')).code).toBe(0);
    } finally {
      process.umask(previous);
    }
    const all = modes(home);
    expect(all.some((f) => f.p.includes(`${path.sep}backups${path.sep}`))).toBe(true);
    expect(all.filter((f) => (f.dir ? f.mode !== 0o700 : (f.mode & 0o077) !== 0))).toEqual([]);
    expect(fs.statSync(home).mode & 0o777).toBe(0o700);
  });

  it('forget about erases the text from the table files and the log, and says so', async () => {
    const home = tempDir('nemori-erase-');
    expect((await nemoriAt(home, '--no-llm', 'import', chat(tempDir()))).code).toBe(0);
    expect(filesContaining(home, 'Quixotelmo').length).toBeGreaterThan(0);
    const forgot = await nemoriAt(home, '--no-llm', '--json', 'forget', 'about', 'Quixotelmo');
    expect(forgot.code, forgot.stderr).toBe(0);
    expect(JSON.parse(forgot.stdout)).toMatchObject({ about: 'Quixotelmo', erased: true });
    expect(filesContaining(home, 'Quixotelmo')).toEqual([]);
    // What was not forgotten is still there.
    const found = await nemoriAt(home, '--no-llm', '--json', 'search', 'tomatoes', '--mode', 'bm25');
    expect(JSON.parse(found.stdout).results.length).toBeGreaterThan(0);
  });
});
