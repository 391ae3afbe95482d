import { describe, expect, it } from 'vitest';
import { ForgettingConfig, defaultForgettingConfig as c } from '../../core/context/forgetting-config.js';
import { decayOf, decideTier, dynamicImportance, type AccessRecord, type MemoryKind, type Tier } from '../../core/forgetting/decay.js';
import { accessRecord, at, t0 } from './records.js';

/** Lets one memory age day by day with passes, and tells on which day it reached each tier. */
function lifeOf(r: AccessRecord, days: number, config = c): Partial<Record<Tier | 'purged', number>> {
  const seen: Partial<Record<Tier | 'purged', number>> = {};
  let cur = { ...r };
  for (let d = 1; d <= days; d++) {
    const now = at(d);
    const decision = decideTier(cur, decayOf(cur, now, config), now, config);
    if (!decision) continue;
    seen[decision.to] ??= d;
    if (decision.to === 'purged') break;
    cur = { ...cur, tier: decision.to, tierChangedAt: now };
  }
  return seen;
}

describe('the decay score', () => {
  it('is zero for a fresh memory and finite for one never recalled (the usual formula divides by log(0 + 1))', () => {
    expect(decayOf(accessRecord(), t0, c).score).toBe(0);
    const year = decayOf(accessRecord(), at(365), c);
    expect(Number.isFinite(year.score)).toBe(true);
    expect(year.score).toBeGreaterThan(0);
  });

  it('grows with time and shrinks with recall and importance', () => {
    const base = decayOf(accessRecord(), at(100), c).score;
    expect(decayOf(accessRecord(), at(200), c).score).toBeGreaterThan(base);
    expect(decayOf(accessRecord({ recallCount: 5 }), at(100), c).score).toBeLessThan(base);
    expect(decayOf(accessRecord({ baseImportance: 0.9 }), at(100), c).score).toBeLessThan(base);
    expect(decayOf(accessRecord({ baseImportance: 0.1 }), at(100), c).score).toBeGreaterThan(base);
  });

  it('counts time from the last access, or from the creation when never accessed', () => {
    const touched = accessRecord({ recallCount: 1, lastAccessed: at(90) });
    expect(decayOf(touched, at(100), c).elapsedDays).toBeCloseTo(10);
    expect(decayOf(accessRecord(), at(100), c).elapsedDays).toBeCloseTo(100);
  });

  it('restarts the clock of a memory brought back from the archive or trash', () => {
    const restored = accessRecord({ tier: 'active', tierChangedAt: at(300) });
    expect(decayOf(restored, at(301), c).elapsedDays).toBeCloseTo(1);
    // while archived, the move itself does not reset it
    expect(decayOf(accessRecord({ tier: 'archived', tierChangedAt: at(300) }), at(301), c).elapsedDays).toBeCloseTo(301);
  });

  it('follows the formula: elapsed units / ((1 + ln(1 + n)) × (importance + 10 × marked))', () => {
    const r = accessRecord({ baseImportance: 0.4, recallCount: 3, lastAccessed: t0 });
    const d = decayOf(r, at(70), c);
    const expected = 70 / c.kinds.episode.decayUnitDays / ((1 + Math.log(4)) * d.importance);
    expect(d.score).toBeCloseTo(expected, 10);
    const marked = decayOf({ ...r, marked: true }, at(70), c);
    expect(marked.score).toBeCloseTo(70 / 7 / ((1 + Math.log(4)) * (1 + 10)), 10);
  });
});

describe('semantic facts outlive episodes', () => {
  it('decay ten times more slowly by default, with a longer importance half-life', () => {
    for (const days of [30, 180, 365, 1000]) {
      const episode = decayOf(accessRecord({ kind: 'episode' }), at(days), c).score;
      const fact = decayOf(accessRecord({ kind: 'semantic' }), at(days), c).score;
      expect(fact).toBeLessThan(episode / 5);
    }
    expect(c.kinds.semantic.importanceHalfLifeDays).toBeGreaterThan(c.kinds.episode.importanceHalfLifeDays);
  });

  it('an unrecalled trivial fact is still active when the same trivial episode is long purged', () => {
    const kinds: MemoryKind[] = ['episode', 'semantic'];
    const [episode, fact] = kinds.map((kind) => lifeOf(accessRecord({ kind, baseImportance: 0.1 }), 3 * 365));
    expect(episode!.purged).toBeLessThan(365);
    expect(fact!.archived).toBeGreaterThan(episode!.purged!);
    expect(fact!.trash).toBeUndefined();
  });
});

describe('importance dynamics', () => {
  it('rises with frequent recall, never above 1', () => {
    const imp = (n: number) => dynamicImportance(accessRecord({ recallCount: n }), 0, c);
    expect(imp(0)).toBeCloseTo(0.5);
    expect(imp(3)).toBeGreaterThan(imp(0));
    expect(imp(20)).toBeGreaterThan(imp(3));
    expect(imp(10_000)).toBeLessThanOrEqual(1);
  });

  it('falls with time, but never below the floor', () => {
    const r = accessRecord({ baseImportance: 0.6 });
    expect(dynamicImportance(r, 180, c)).toBeLessThan(dynamicImportance(r, 0, c));
    expect(dynamicImportance(r, 180, c)).toBeCloseTo(0.6 * (0.5 + 0.5 * 0.5));
    expect(dynamicImportance(r, 100_000, c)).toBeCloseTo(0.6 * c.importance.fadeFloor);
  });

  it('the person’s mark wins over use and time', () => {
    expect(dynamicImportance(accessRecord({ marked: true, baseImportance: 0.1 }), 1000, c)).toBe(1);
    expect(dynamicImportance(accessRecord({ marked: false, baseImportance: 0.9, recallCount: 50 }), 0, c)).toBe(c.importance.notImportant);
  });
});

describe('tier rules', () => {
  it('trivia is archived, then trashed, then purged after the retention period, within a year', () => {
    const life = lifeOf(accessRecord({ baseImportance: 0.1 }), 365);
    expect(life.archived).toBeGreaterThan(30);
    expect(life.trash).toBeGreaterThan(life.archived!);
    expect(life.purged! - life.trash!).toBe(c.trashRetentionDays);
    expect(life.purged).toBeLessThanOrEqual(365);
  });

  it('a memory of ordinary importance nobody recalls leaves vector search within a year but is not trashed', () => {
    const life = lifeOf(accessRecord(), 365);
    expect(life.archived).toBeGreaterThan(180);
    expect(life.trash).toBeUndefined();
  });

  it('memories marked important are exempt, and come back from the archive and the trash', () => {
    const r = accessRecord({ baseImportance: 0.01, marked: true });
    expect(lifeOf(r, 3650)).toEqual({});
    for (const tier of ['archived', 'trash'] as const) {
      const d = decideTier({ ...r, tier, tierChangedAt: t0 }, decayOf({ ...r, tier }, at(400), c), at(400), c);
      expect(d?.to).toBe('active');
    }
  });

  it('an archived memory recalled again returns to active; the trash waits for the person', () => {
    const recalled = accessRecord({ tier: 'archived', tierChangedAt: at(250), recallCount: 1, lastAccessed: at(260) });
    expect(decideTier(recalled, decayOf(recalled, at(261), c), at(261), c)?.to).toBe('active');
    const trashed = { ...recalled, tier: 'trash' as const };
    expect(decideTier(trashed, decayOf(trashed, at(261), c), at(261), c)).toBeNull();
  });

  it('every parameter is a setting', () => {
    const fast = ForgettingConfig.parse({ thresholds: { archive: 10, trash: 20 }, trashRetentionDays: 1 });
    const life = lifeOf(accessRecord(), 365, fast);
    expect(life.purged).toBeLessThan(lifeOf(accessRecord(), 365 * 3).trash!);
    expect(() => ForgettingConfig.parse({ thresholds: { archive: 50, trash: 40 } })).toThrow(/trash threshold/);
  });
});
