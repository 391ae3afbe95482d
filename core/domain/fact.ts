import { z } from 'zod';
import type { ForgettingReason } from './forgetting-reason.js';

/**
 * Semantic memory (nodes and relationships, their versions and lineage).
 * Keys are `{entity_type}:{identifier}`: the type is a lower-case word, the identifier the rest,
 * normalised so "John的研究方向", " john的研究方向 " and "JOHN的研究方向" are one key.
 */

export const RelationshipType = z.enum(['related', 'evolved_from', 'part_of', 'similar_to', 'opposite_to', 'temporal']);
export type RelationshipType = z.infer<typeof RelationshipType>;

/** How a fact (or one of its versions) came to be. */
export const DiscoveryMethod = z.enum(['diff_analysis', 'upsert', 'memorize', 'user_feedback']);
export type DiscoveryMethod = z.infer<typeof DiscoveryMethod>;

/** A later version `updates` the one before (the world changed) or `corrects` it (it was wrong). */
export const VersionLink = z.enum(['updates', 'corrects']);
export type VersionLink = z.infer<typeof VersionLink>;

export const LinkRole = z.enum(['discovery', 'linked', 'evolution']);
export type LinkRole = z.infer<typeof LinkRole>;

export const DEFAULT_ENTITY_TYPE = 'fact';

export interface ParsedKey {
  key: string;
  entityType: string;
  identifier: string;
  /** The identifier as written (before case and space folding), for display. */
  label: string;
}

const TYPE_RE = /^[\p{L}_][\p{L}\p{N}_-]{0,39}$/u;

function foldIdentifier(s: string): string {
  return (
    s
      .normalize('NFKC')
      .toLowerCase()
      .trim()
      // Spaces between a Latin word and CJK text are cosmetic ("John 的研究方向" = "John的研究方向").
      .replace(
        /(?<=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])\s+|\s+(?=[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}])/gu,
        '',
      )
      .replace(/[\s]+/gu, '_')
      .replace(/[^\p{L}\p{N}\p{M}_.\-/:@#+]/gu, '')
      .replace(/_+/g, '_')
      // Separators at the ends carry nothing (":alice" is "alice").
      .replace(/^[_.\-/:@#+]+|[_.\-/:@#+]+$/gu, '')
  );
}

/**
 * Normalises a key to `{entity_type}:{identifier}`. A key without a type prefix gets `fallbackType`
 * (or "fact"). Throws a person-readable error for keys that normalise to nothing.
 */
export function parseKey(raw: string, fallbackType?: string | null): ParsedKey {
  const text = raw.normalize('NFKC').trim();
  const colon = text.indexOf(':');
  let type = fallbackType ?? DEFAULT_ENTITY_TYPE;
  let rest = text;
  if (colon > 0) {
    const head = text.slice(0, colon).trim().toLowerCase().replace(/\s+/g, '_');
    if (TYPE_RE.test(head)) {
      type = head;
      rest = text.slice(colon + 1);
    }
  }
  type = type.trim().toLowerCase().replace(/\s+/g, '_');
  if (!TYPE_RE.test(type)) type = DEFAULT_ENTITY_TYPE;
  const identifier = foldIdentifier(rest);
  if (!/[\p{L}\p{N}]/u.test(identifier))
    throw new KeyError(`"${raw}" is not a usable key: write it as entity_type:identifier, e.g. person:alice or location:new_york`);
  return { key: `${type}:${identifier}`, entityType: type, identifier, label: rest.trim().replace(/\s+/g, ' ') };
}

export class KeyError extends Error {
  readonly code = 'INVALID_KEY';
}

export const KeyInput = z
  .string()
  .trim()
  .min(1, 'the key is empty')
  .max(500)
  .superRefine((k, ctx) => {
    try {
      parseKey(k);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  });

export interface Fact {
  id: string;
  ownerId: string;
  key: string;
  entityType: string;
  label: string;
  value: string;
  context: string;
  confidence: number;
  version: number;
  discoveryEpisodeId: string | null;
  discoveryMethod: DiscoveryMethod;
  keywords: string[];
  tags: string[];
  source: string | null;
  accessCount: number;
  lastAccessed: Date | null;
  relevance: number;
  importance: number;
  baseImportance: number | null;
  tokens: number;
  tier: 'active' | 'archived' | 'trash';
  tierChangedAt: Date | null;
  tierReason: ForgettingReason | null;
  markedImportant: boolean | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface FactVersion {
  nodeId: string;
  version: number;
  value: string;
  context: string;
  confidence: number;
  link: VersionLink | null;
  corrected: boolean;
  method: DiscoveryMethod;
  episodeId: string | null;
  sourceMessageIds: string[];
  createdAt: Date;
}

export interface FactLink {
  nodeId: string;
  episodeId: string;
  role: LinkRole;
  createdAt: Date;
}

export interface FactRelationship {
  id: string;
  sourceId: string;
  targetId: string;
  type: RelationshipType;
  strength: number;
  description: string;
  discoveryEpisodeId: string | null;
  createdAt: Date;
  lastReinforced: Date;
}
