import type { LinkRole, FactLink } from '../domain/fact.js';
import type { Sql } from './sql.js';

/**
 * Links between facts and episodes (table `semantic_episode_links`), read both ways from the one
 * table so the two directions cannot disagree. Roles: `discovery` (the episode the fact was found in),
 * `linked` (an episode that repeated it), `evolution` (an episode that changed its value).
 */

type LinkRow = { node_id: string; episode_id: string; role: LinkRole; created_at: Date };
const toLink = (x: LinkRow): FactLink => ({ nodeId: x.node_id, episodeId: x.episode_id, role: x.role, createdAt: x.created_at });

export function factLinkReads(q: Sql) {
  return {
    /** The episodes of these facts, oldest link first. */
    async ofFacts(ownerId: string, factIds: readonly string[]): Promise<FactLink[]> {
      if (factIds.length === 0) return [];
      const r = await q.query<LinkRow>(
        `SELECT node_id, episode_id, role, created_at FROM semantic_episode_links WHERE owner_id = $1 AND node_id = ANY($2::uuid[]) ORDER BY created_at`,
        [ownerId, factIds],
      );
      return r.rows.map(toLink);
    },

    /** The facts (outside the trash) of these episodes, oldest link first. */
    async ofEpisodes(ownerId: string, episodeIds: readonly string[]): Promise<FactLink[]> {
      if (episodeIds.length === 0) return [];
      const r = await q.query<LinkRow>(
        `SELECT l.node_id, l.episode_id, l.role, l.created_at FROM semantic_episode_links l
         JOIN semantic_nodes n ON n.id = l.node_id AND n.tier <> 'trash'
         WHERE l.owner_id = $1 AND l.episode_id = ANY($2::uuid[]) ORDER BY l.created_at`,
        [ownerId, episodeIds],
      );
      return r.rows.map(toLink);
    },
  };
}

export function factLinkWrites(q: Sql) {
  return {
    /** Links one of the owner's facts to one of the owner's episodes (anything else links nothing); once per role. */
    async link(ownerId: string, factId: string, episodeId: string, role: LinkRole, now: Date): Promise<void> {
      await q.query(
        `INSERT INTO semantic_episode_links (node_id, episode_id, owner_id, role, created_at)
         SELECT n.id, e.id, $1, $4, $5 FROM semantic_nodes n JOIN episodes e ON e.owner_id = $1 AND e.id = $3
         WHERE n.owner_id = $1 AND n.id = $2
         ON CONFLICT DO NOTHING`,
        [ownerId, factId, episodeId, role, now],
      );
    },
  };
}
