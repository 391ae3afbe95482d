/** `nemori load`: the block a companion is given, from the command line. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { nemoriAt } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

describe('nemori load', { timeout: 180_000 }, () => {
  it('prints what is remembered as Markdown within --budget, or the operation output with --json', async () => {
    const home = tempDir('nemori-load-');
    const file = path.join(home, 'chat.json');
    fs.writeFileSync(
      file,
      JSON.stringify({
        conversations: [
          {
            id: 'walks',
            messages: [
              {
                id: 'w1',
                speaker: 'Alice',
                role: 'user',
                text: 'Saw three herons by the old mill this morning.',
                timestamp: '2024-02-10T08:00:00+01:00',
              },
              {
                id: 'w2',
                speaker: 'Nemo',
                role: 'assistant',
                text: 'Herons at the mill again! Did you bring your camera?',
                timestamp: '2024-02-10T08:01:00+01:00',
              },
            ],
          },
        ],
      }),
    );
    expect((await nemoriAt(home, 'import', file)).code).toBe(0);

    const human = await nemoriAt(home, 'load', '--query', 'herons at the mill', '--now', '2024-02-12T09:00:00+01:00', '--budget', '200');
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('## What I remember — now is Monday, 12 February 2024, 09:00 (all times UTC+01:00 unless marked)');
    expect(human.stdout).toContain('### Related to “herons at the mill”');
    expect(human.stdout).toContain('Saturday, 10 February 2024, 08:00–08:01 — **');

    // The opening as words, as `nemori search` takes its query.
    const words = await nemoriAt(home, 'load', 'herons', 'at', 'the', 'mill', '--now', '2024-02-12T09:00:00+01:00', '--budget', '200');
    expect(words.code).toBe(0);
    expect(words.stdout).toBe(human.stdout);
    const both = await nemoriAt(home, 'load', 'herons', '--query', 'mill');
    expect(both.code).toBe(1);
    expect(both.stderr).toContain('give the opening as words or with --query, not both');

    const json = await nemoriAt(home, '--json', 'load', '--budget', '150', '--now', '2024-02-12');
    const out = JSON.parse(json.stdout) as { tokens: number; budgetTokens: number; query: null; sections: { recent: { when: string }[] } };
    expect(out).toMatchObject({ budgetTokens: 150, query: null });
    expect(out.tokens).toBeLessThanOrEqual(150);
    expect(out.sections.recent[0]!.when).toBe('Saturday, 10 February 2024, 08:00–08:01 (UTC+01:00)');

    const bad = await nemoriAt(home, 'load', '--budget', '10');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('loadContext: budgetTokens');
  });
});
