import { describe, expect, it } from 'vitest';
import { nemoriAt as nemori } from '../helpers/cli.js';
import { fixture, tempDir } from '../helpers/engine.js';

/** `nemori knowledge …` and `nemori search --kind`: the real command against a temp home. Each flow has its own home, so they run side by side. */

const json = async (home: string, ...args: string[]) => {
  const r = await nemori(home, '--json', ...args);
  expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
  return JSON.parse(r.stdout);
};
const keysOf = (o: { facts: { key: string }[] }) => o.facts.map((f) => f.key);

describe.concurrent('nemori knowledge', { timeout: 240_000 }, () => {
  it('keeps every version of a fact, marks a correction, and forgets softly or for good', async () => {
    const home = tempDir();
    expect(await json(home, 'knowledge', 'upsert', 'person:Alice', 'lives in Lisbon')).toMatchObject({
      action: 'created',
      key: 'person:alice',
      version: 1,
    });
    expect(
      await json(
        home,
        'knowledge',
        'upsert',
        'person:alice',
        'lives',
        'in',
        'Porto',
        '--tag',
        'home',
        '--tag',
        'family',
        '--importance',
        '0.8',
      ),
    ).toMatchObject({
      action: 'evolved',
      version: 2,
      previousValue: 'lives in Lisbon',
      fact: { tags: ['home', 'family'], importance: 0.8 },
    });

    const history = await json(home, 'knowledge', 'history', 'person:alice');
    expect(history.timeline.map((v: { version: number; value: string; link: string | null }) => [v.version, v.value, v.link])).toEqual([
      [1, 'lives in Lisbon', null],
      [2, 'lives in Porto', 'updates'],
    ]);
    const shown = await nemori(home, 'knowledge', 'show', 'PERSON:alice');
    expect(shown.stdout).toContain('lives in Porto');
    expect(shown.stdout).toMatch(/Versions \(2\)/);

    expect(await json(home, 'knowledge', 'upsert', 'person:alice', 'lives in Braga', '--correction')).toMatchObject({
      action: 'corrected',
      version: 3,
    });
    expect((await json(home, 'knowledge', 'version', 'person:alice', '3')).version).toMatchObject({
      value: 'lives in Braga',
      link: 'corrects',
    });

    expect((await json(home, 'knowledge', 'forget', 'key:person:alice')).forgotten).toEqual([
      expect.objectContaining({ key: 'person:alice' }),
    ]);
    expect(keysOf(await json(home, 'knowledge', 'list'))).not.toContain('person:alice');
    const trash = await nemori(home, 'knowledge', 'list', '--trash');
    expect(trash.stdout).toContain('person:alice');
    expect(trash.stdout).toContain('lives in Braga');
    expect(await json(home, 'knowledge', 'undelete', 'person:alice')).toMatchObject({ key: 'person:alice', tier: 'active', version: 3 });

    expect(await json(home, 'knowledge', 'forget', 'key:person:alice', '--hard')).toMatchObject({
      mode: 'hard',
      forgotten: [{ key: 'person:alice' }],
    });
    const gone = await nemori(home, 'knowledge', 'show', 'person:alice');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('no fact person:alice');
  });

  it('searches facts apart from episodes with --kind', async () => {
    const home = tempDir();
    expect((await nemori(home, 'import', fixture('import', 'two-days.json'))).code).toBe(0);
    await json(home, 'knowledge', 'memorize', 'Emma works at the Lisbon aquarium', '--key', 'person:emma', '--source', 'chat');

    const kinds = async (...args: string[]) => (await json(home, 'search', 'Lisbon', ...args)).results.map((r: { kind: string }) => r.kind);
    const semantic = await kinds('--kind', 'semantic');
    expect(semantic.length).toBeGreaterThan(0);
    expect(new Set(semantic)).toEqual(new Set(['semantic']));
    expect(new Set(await kinds())).toEqual(new Set(['episode', 'semantic']));

    const remembered = await json(home, 'knowledge', 'remember', 'Lisbon', '--type', 'person');
    expect(remembered.items.map((i: { key: string }) => i.key)).toEqual(['person:emma']);
    const summary = await nemori(home, 'knowledge', 'summarize', 'person');
    expect(summary.stdout).toContain('Emma works at the Lisbon aquarium');
  });

  it('says discovery waits for an LLM, and names bad input', async () => {
    const home = tempDir();
    const discover = await nemori(home, 'knowledge', 'discover');
    expect(discover.code).toBe(0);
    expect(discover.stdout).toMatch(/discovery waits for an LLM/);

    const badKey = await nemori(home, '--json', 'knowledge', 'upsert', ':::', 'something');
    expect(badKey.code).toBe(1);
    expect(JSON.parse(badKey.stdout).error.code).toBe('INVALID_INPUT');
    expect(badKey.stderr).toMatch(/":::" is not a usable key: write it as entity_type:identifier/);

    const badNumber = await nemori(home, 'knowledge', 'list', '--limit', 'ten');
    expect(badNumber.code).toBe(1);
    expect(badNumber.stderr).toContain('not a whole number: ten');

    const badInstruction = await nemori(home, 'knowledge', 'forget', 'everything');
    expect(badInstruction.code).toBe(1);
    expect(badInstruction.stderr).toMatch(
      /is not a forget instruction: use key:<entity_type:identifier>, oldest, least important or before:<time>/,
    );
  });
});
