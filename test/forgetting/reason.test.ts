/**
 * Forgetting reasons are data: the tier rules say which rule moved a memory and with what numbers,
 * the store keeps them as JSON (reading back old English sentences as they were), and the CLI puts
 * them into English.
 */
import { describe, expect, it } from 'vitest';
import { parseReason, serializeReason, type ForgettingReason } from '../../core/domain/forgetting-reason.js';
import { defaultForgettingConfig as c } from '../../core/context/forgetting-config.js';
import { decayOf, decideTier, type AccessRecord } from '../../core/forgetting/decay.js';
import { reasonText } from '../../core/forgetting/reason-text.js';
import { accessRecord, at } from './records.js';

const record = (o: Partial<AccessRecord> = {}) => accessRecord({ baseImportance: 0.1, recallCount: 2, ...o });

const decide = (r: AccessRecord, day: number) => decideTier(r, decayOf(r, at(day), c), at(day), c);

describe('the reason a pass gives', () => {
  it('names the threshold crossed and every input of the score', () => {
    const r = record();
    const day = Array.from({ length: 3000 }, (_, d) => d).find((d) => decide(r, d)?.to === 'trash')!;
    const d = decayOf(r, at(day), c);
    expect(decide(r, day)?.reason).toEqual({
      kind: 'decay',
      threshold: 'trash',
      limit: c.thresholds.trash,
      score: d.score,
      days: day,
      importance: d.importance,
      recalls: 2,
    });
    expect(decide(r, day - 1)?.reason).toMatchObject({ kind: 'decay', threshold: 'archive', limit: c.thresholds.archive });
  });

  it('says why a memory comes back or goes for good', () => {
    const recalled = record({ tier: 'archived', tierChangedAt: at(200), lastAccessed: at(260) });
    expect(decide(recalled, 261)?.reason).toMatchObject({ kind: 'recovered', limit: c.thresholds.archive });
    expect(decide(record({ tier: 'trash', tierChangedAt: at(10) }), 10 + c.trashRetentionDays + 2.5)?.reason).toEqual({
      kind: 'retention',
      days: c.trashRetentionDays + 2,
      retentionDays: c.trashRetentionDays,
    });
    expect(decide(record({ tier: 'archived', tierChangedAt: at(1), marked: true }), 5)?.reason).toEqual({ kind: 'important' });
  });
});

describe('a stored reason', () => {
  const decay: ForgettingReason = { kind: 'decay', threshold: 'trash', limit: 500, score: 512.4, days: 300, importance: 0.1, recalls: 0 };

  it('round-trips through its JSON text', () => {
    for (const r of [
      decay,
      { kind: 'restored', from: 'archive' },
      { kind: 'forgotten', request: { by: 'before', before: '2024-01-31T00:00:00.000Z' } },
    ] as ForgettingReason[]) {
      expect(parseReason(serializeReason(r))).toEqual(r);
    }
    expect(parseReason(null)).toBeNull();
  });

  it('written before reasons were data reads back as its text, whatever it looks like', () => {
    const old = 'decay score 512 after 300 days without recall, importance 0.10, recalled 0× ≥ 500 (trash threshold)';
    expect(parseReason(old)).toEqual({ kind: 'text', text: old });
    for (const odd of ['42', '{"kind":"decay"}', '{"kind":"nonsense","text":"x"}', ''])
      expect(parseReason(odd)).toEqual({ kind: 'text', text: odd });
  });
});

describe('reasons in English (the CLI)', () => {
  it('reads as a sentence with its numbers', () => {
    expect(reasonText({ kind: 'decay', threshold: 'trash', limit: 500, score: 512.4, days: 300, importance: 0.1, recalls: 0 })).toBe(
      'decay score 512 ≥ 500 (trash threshold): 300 days without recall, importance 0.10, recalled 0×',
    );
    expect(reasonText({ kind: 'recovered', score: 42.25, limit: 100 })).toBe(
      'decay score 42.3 is back under 100 (recalled again, or the settings changed)',
    );
    expect(reasonText({ kind: 'retention', days: 31, retentionDays: 30 })).toBe('in the trash for 31 days (retention 30)');
    expect(reasonText({ kind: 'restored', from: 'trash' })).toBe('restored by you from the trash');
    expect(reasonText({ kind: 'emptied' })).toBe('trash emptied by you');
    expect(reasonText({ kind: 'important' })).toBe('marked important by you: exempt from forgetting');
    expect(reasonText({ kind: 'forgotten', request: { by: 'key', key: 'person:alice' } })).toBe('forgotten on request (key:person:alice)');
    expect(reasonText({ kind: 'forgotten', request: { by: 'leastImportant' } })).toBe('forgotten on request (least important)');
    expect(reasonText({ kind: 'text', text: 'an old sentence' })).toBe('an old sentence');
  });
});
