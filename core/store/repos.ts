import { baselineReads } from './baseline.js';
import { bm25Reads, bm25Writes } from './bm25.js';
import { conversationReads, conversationWrites } from './conversations.js';
import { discoveryQueueReads, discoveryQueueWrites } from './discovery-queue.js';
import { episodeReads, episodeWrites } from './episodes.js';
import { factForgettingReads, factForgettingWrites } from './fact-forgetting.js';
import { factLinkReads, factLinkWrites } from './fact-links.js';
import { factTermReads, factTermWrites } from './fact-terms.js';
import { factVectorReads, factVectorWrites } from './fact-vectors.js';
import { factVersionReads, factVersionWrites } from './fact-versions.js';
import { factReads, factWrites } from './facts.js';
import { forgettingReads, forgettingWrites } from './forgetting.js';
import { graphReads, graphWrites } from './graph.js';
import { importPreferenceReads, importPreferenceWrites } from './import-preferences.js';
import { privacyReads, privacyWrites } from './privacy.js';
import { integrityReads, integrityWrites } from './integrity.js';
import { llmReads, llmWrites } from './llm.js';
import { relationshipReads, relationshipWrites } from './relationships.js';
import { settingReads, settingWrites } from './settings.js';
import type { Sql, WriteTracker } from './sql.js';
import { vectorReads, vectorWrites } from './vectors.js';

import { memoryTableReads, memoryTableWrites } from './memory-tables.js';
/**
 * Every repository, by aggregate. `readRepos` is what `store.read` hands out: queries only, on the
 * database itself. `writeRepos` is what a transaction hands out: the same queries plus the writes,
 * all on the transaction, so reads inside it see its own uncommitted rows.
 */
export function readRepos(q: Sql) {
  return {
    conversations: conversationReads(q),
    episodes: episodeReads(q),
    bm25: bm25Reads(q),
    vectors: vectorReads(q),
    graph: graphReads(q),
    forgetting: forgettingReads(q),
    facts: factReads(q),
    factVersions: factVersionReads(q),
    factLinks: factLinkReads(q),
    relationships: relationshipReads(q),
    factTerms: factTermReads(q),
    factVectors: factVectorReads(q),
    factForgetting: factForgettingReads(q),
    discoveryQueue: discoveryQueueReads(q),
    settings: settingReads(q),
    llm: llmReads(q),
    importPreferences: importPreferenceReads(q),
    baseline: baselineReads(q),
    integrity: integrityReads(q),
    memoryTables: memoryTableReads(q),
    privacy: privacyReads(q),
  };
}

/** The read-only view of the store: no method of it writes. */
export type ReadRepos = ReturnType<typeof readRepos>;

export function writeRepos(q: Sql, track: WriteTracker) {
  const r = readRepos(q);
  return {
    ...r,
    conversations: { ...r.conversations, ...conversationWrites(q) },
    episodes: { ...r.episodes, ...episodeWrites(q) },
    bm25: { ...r.bm25, ...bm25Writes(q, track) },
    vectors: { ...r.vectors, ...vectorWrites(q) },
    graph: { ...r.graph, ...graphWrites(q) },
    forgetting: { ...r.forgetting, ...forgettingWrites(q) },
    facts: { ...r.facts, ...factWrites(q, track) },
    factVersions: { ...r.factVersions, ...factVersionWrites(q) },
    factLinks: { ...r.factLinks, ...factLinkWrites(q) },
    relationships: { ...r.relationships, ...relationshipWrites(q) },
    factTerms: { ...r.factTerms, ...factTermWrites(q, track) },
    factVectors: { ...r.factVectors, ...factVectorWrites(q) },
    factForgetting: { ...r.factForgetting, ...factForgettingWrites(q) },
    discoveryQueue: { ...r.discoveryQueue, ...discoveryQueueWrites(q) },
    settings: { ...r.settings, ...settingWrites(q) },
    llm: { ...r.llm, ...llmWrites(q) },
    importPreferences: { ...r.importPreferences, ...importPreferenceWrites(q) },
    integrity: { ...r.integrity, ...integrityWrites(q) },
    memoryTables: { ...r.memoryTables, ...memoryTableWrites(q) },
    privacy: { ...r.privacy, ...privacyWrites(q) },
  };
}

/** The repositories inside a transaction: reads and writes, every statement part of that transaction. */
export type Repos = ReturnType<typeof writeRepos>;
