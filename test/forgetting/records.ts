import type { AccessRecord } from '../../core/forgetting/decay.js';

/** The day the pure forgetting tests start from, and a day counted from it. */
export const t0 = new Date('2025-01-01T00:00:00Z');
export const at = (days: number) => new Date(t0.getTime() + days * 86_400_000);

/** An active episode created on t0, never recalled, unmarked, with `o` changed. */
export function accessRecord(o: Partial<AccessRecord> = {}): AccessRecord {
  return {
    kind: 'episode',
    baseImportance: 0.5,
    recallCount: 0,
    lastAccessed: null,
    createdAt: t0,
    tier: 'active',
    tierChangedAt: null,
    marked: null,
    ...o,
  };
}
