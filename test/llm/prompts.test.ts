import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { entityKey, predicateKey } from '../../core/episodes/entity-names.js';
import { graphPayload, narrativeReply } from '../../core/episodes/llm-builder.js';
import { defaultPromptsDir, loadPrompt, placeholders, renderPrompt, type PromptName } from '../../core/llm/prompts.js';
import { redact } from '../../core/llm/secrets.js';

const names: PromptName[] = [
  'episode-boundaries',
  'episode-narrative',
  'semantic-reconstruct',
  'semantic-gaps',
  'repair',
  'connection-test',
];

describe('prompt files', () => {
  it('are exactly the files in core/llm/prompts, each marked with its task', () => {
    expect(fs.readdirSync(defaultPromptsDir).sort()).toEqual(names.map((n) => `${n}.md`).sort());
    for (const n of names) expect(loadPrompt(n).split('\n')[0]).toMatch(/^Task: [a-z-]+$/);
  });

  it('each asks for strict JSON (the reconstruction: plain text) in the conversation’s own language', () => {
    for (const n of names) {
      const text = loadPrompt(n);
      expect(text, n).toMatch(n === 'semantic-reconstruct' ? /plain text \(not JSON\)/ : /strict JSON only/);
      expect(text, n).toMatch(/conversation's own language|language of this message/);
    }
  });

  it('refuses to render with a placeholder missing or unused, and never expands braces inside values', () => {
    expect(placeholders(loadPrompt('repair'))).toEqual(['error']);
    expect(() => renderPrompt('repair', {})).toThrow(/missing error/);
    expect(() => renderPrompt('repair', { error: 'x', extra: 'y' })).toThrow(/unused extra/);
    expect(renderPrompt('repair', { error: 'field {{error}} is wrong' })).toContain('field {{error}} is wrong');
  });
});

describe('narrative validation', () => {
  const base = { title: 'T', summary: 'S', importance: 0.5 };

  it('requires the absolute date with its year in the narrative', () => {
    const schema = narrativeReply([2023]);
    expect(schema.safeParse({ ...base, content: 'Yesterday Alice went hiking in the Alps with Bob.' }).success).toBe(false);
    expect(schema.safeParse({ ...base, content: 'On 7 May 2023 Alice went hiking in the Alps with Bob.' }).success).toBe(true);
    expect(schema.safeParse({ ...base, content: '2023年5月7日，小明和小红去爬山了，天气很好。' }).success).toBe(true);
  });

  it('forgives cosmetic slips but not a missing or out-of-range importance', () => {
    const schema = narrativeReply([2023]);
    const content = 'On 7 May 2023 Alice went hiking in the Alps with Bob.';
    const ok = schema.parse({ ...base, content, episodeType: 'Social', level: '2', emotion: { sentiment: 'POSITIVE', intensity: 7 } });
    expect(ok).toMatchObject({ episodeType: 'social', level: 2, emotion: { sentiment: 'positive', intensity: 0.5 } });
    expect(schema.safeParse({ ...base, content, importance: 8 }).success).toBe(false);
    // A broken entity or triple is dropped, the rest of the episode kept.
    const partial = schema.parse({
      ...base,
      content,
      entities: [{ name: '' }, { name: 'Alice', type: 'person' }, 'Bob'],
      relationships: [['Alice', 'KNOWS'], { subject: 'Alice', predicate: 'knows', object: 'Bob' }],
    });
    expect(partial.entities).toEqual([{ name: 'Alice', type: 'PERSON', aliases: [] }]);
    expect(partial.relationships).toEqual([['Alice', 'knows', 'Bob']]);
    expect(schema.safeParse({ title: 'T', summary: 'S', content }).success).toBe(false);
  });
});

describe('entity linking keys', () => {
  it('fold case, width, whitespace, quotes and surrounding punctuation', () => {
    expect(entityKey('  Emma ')).toBe('emma');
    expect(entityKey('ＥＭＭＡ')).toBe('emma');
    expect(entityKey('“Project  Phoenix”')).toBe('project phoenix');
    expect(entityKey('The Lisbon Aquarium.')).toBe('lisbon aquarium');
    expect(entityKey('张伟')).toBe('张伟');
    expect(predicateKey('works at')).toBe('WORKS_AT');
    expect(predicateKey('是…的姐姐')).toBe('是_的姐姐');
  });

  it('merge an episode’s duplicate entities, add the speakers and any triple endpoint the model did not list', () => {
    const g = graphPayload(
      {
        entities: [
          { name: 'Emma', type: 'PERSON', aliases: ['Em'], role: null },
          { name: 'em', type: 'OTHER', aliases: [], role: 'subject' },
        ],
        relationships: [['Em', 'moves to', 'Lisbon']],
      },
      ['Alice'],
    );
    expect(g.entities.map((e) => [e.name, e.type, e.aliases.map((a) => a.key)])).toEqual([
      ['Emma', 'PERSON', ['em']],
      ['Alice', 'PERSON', []],
      ['Lisbon', 'OTHER', []],
    ]);
    expect(g.relationships).toEqual([{ subjectKey: 'emma', predicate: 'MOVES_TO', objectKey: 'lisbon' }]);
  });
});

describe('secrets', () => {
  it('are removed from any text the client might log', () => {
    expect(redact('key sk-abcdefghijklmnopqrstuvwxyz rejected', [])).toBe('key sk-*** rejected');
    expect(redact('Authorization: Bearer abcdefghijklmnop', [])).toBe('Authorization: Bearer ***');
    expect(redact('GET https://user:pa55word@example.com/v1', [])).toBe('GET https://***@example.com/v1');
    expect(redact('custom-secret-123456 leaked', ['custom-secret-123456'])).toBe('*** leaked');
  });
});
