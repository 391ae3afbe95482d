import type { OpOutput } from '../api/contract.js';
import type { SearchResultItem } from '../api/search-contract.js';
import { modelUnavailableWarning } from '../api/system-contract.js';
import { periodsRead, quantity } from '../text/describe.js';

/** Human-readable renderings of contract outputs; `--json` prints the outputs themselves. */

export const dim = (s: string) => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
export const bold = (s: string) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

export function when(iso: string): string {
  return iso.slice(0, 16).replace('T', ' ');
}

export function renderSearch(o: OpOutput<'search'>): string {
  const periods = periodsRead(o.periods);
  if (o.results.length === 0) return `No memories match “${o.query}”${periods ? ` (${periods})` : ''}.`;
  return periods
    ? `${dim(`${periods}: what was said then, or of it before, comes first`)}\n\n${renderResults(o.results)}`
    : renderResults(o.results);
}

/** Ranked results, episodes and facts alike: title, when (or which fact), score, snippet and why it matched. */
export function renderResults(results: readonly SearchResultItem[]): string {
  return results
    .map((r, i) => {
      const snippet = r.summary || r.text.split('\n').slice(1, 3).join(' ');
      const about = r.kind === 'episode' ? when(r.start) : `fact ${r.key} v${r.version}`;
      return `${bold(`${i + 1}. ${r.title}`)}  ${dim(`${about} · score ${r.score.toFixed(3)} · ${r.id}`)}\n   ${snippet.slice(0, 240)}\n   ${dim(r.reason.explanation)}`;
    })
    .join('\n\n');
}

export function renderEpisodeList(o: OpOutput<'listEpisodes'>): string {
  if (o.episodes.length === 0) return 'No episodes yet. Import a conversation with `nemori import <file>`.';
  const rows = o.episodes.map((e) => `${when(e.start)}  ${e.id}  ${e.title}`);
  if (o.nextCursor) rows.push(dim(`… more: --cursor ${o.nextCursor}`));
  return rows.join('\n');
}

export function renderEpisode(o: OpOutput<'getEpisode'>): string {
  const e = o.episode;
  const meta = [
    `${when(e.start)} – ${when(e.end)} (UTC offset ${e.utcOffsetMin} min)`,
    `type ${e.episodeType}, level ${e.level}, importance ${e.importance.toFixed(2)}, recalled ${e.recallCount}×, built by ${e.builder}`,
    e.metadata.entities.length ? `entities: ${e.metadata.entities.join(', ')}` : '',
    e.keywords.length ? `keywords: ${e.keywords.join(', ')}` : '',
  ].filter(Boolean);
  const messages = o.messages.map((m) => `  ${dim(when(m.sentAt))} ${m.speaker}: ${m.text}`);
  return [
    bold(e.title),
    ...meta.map(dim),
    '',
    e.summary,
    '',
    e.content,
    '',
    bold(`Source messages (${o.messages.length})`),
    ...messages,
  ].join('\n');
}

export function renderStats(o: OpOutput<'stats'>): string {
  if (o.owners.length === 0) return 'The store is empty.';
  return o.owners
    .map((s) => {
      const from = s.sources.length ? `\n  from: ${s.sources.map((x) => `${x.source} (${x.conversations})`).join(', ')}` : '';
      return `${bold(s.ownerId)}: ${quantity(s.conversations, 'conversation')}, ${quantity(s.messages, 'message')}, ${quantity(s.episodes, 'episode')} (${s.embedded} embedded), last write ${s.lastWrite ?? 'never'}${from}`;
    })
    .join('\n');
}

/** Where the model is read from, that it is still to be downloaded, or why it is missing. */
function modelState(e: OpOutput<'health'>['embedding']): string {
  if (!e.available) return `unavailable: ${e.reason ?? 'unknown reason'}; search is keyword-only`;
  const remote = e.source?.match(/^remote: (.*)$/);
  return remote ? `not downloaded yet: ${e.reason ?? 'downloads on first use'}, into ${remote[1]}` : `available (${e.source})`;
}

export function renderHealth(o: OpOutput<'health'>): string {
  const mb = `${o.database.sizeBytes === null ? 'in memory' : `${(o.database.sizeBytes / 1e6).toFixed(1)} MB`}, WAL ${(o.database.walBytes / 1e6).toFixed(1)} MB`;
  const lines = [
    `home: ${o.home ?? '(in memory)'}`,
    `database: ${o.database.status}, schema v${o.database.schemaVersion}, opened in ${o.database.openMs.toFixed(0)} ms, ${mb}`,
    `embedding model: ${o.embedding.modelId} — ${modelState(o.embedding)}`,
    renderStats({ owners: o.owners }),
    !o.checked
      ? 'checks: not run'
      : o.problems.length
        ? `checks${o.deep ? ' (deep)' : ''}: ${quantity(o.problems.length, 'problem')}`
        : `checks${o.deep ? ' (deep)' : ''}: ok`,
    ...o.problems.map((p) => `problem: ${p.message}`),
    // The model's line has said why it is missing.
    ...o.warnings.filter((w) => o.embedding.available || w !== modelUnavailableWarning(o.embedding.reason)).map((w) => `warning: ${w}`),
  ];
  return lines.join('\n');
}

export function renderImport(o: OpOutput<'importFiles'>): string {
  const lines = o.files.map((f) => {
    if (f.error) return `✗ ${f.error.message}`;
    const range = f.dateRange ? `, ${f.dateRange.from.slice(0, 10)} – ${f.dateRange.to.slice(0, 10)}` : '';
    const who = f.participants.length
      ? `\n  participants: ${f.participants.slice(0, 12).join(', ')}${f.participants.length > 12 ? ', …' : ''}${f.me ? ` (you: ${f.me})` : ''}`
      : '';
    const head = `${o.dryRun ? '•' : '✓'} ${f.file} (${f.format}): ${quantity(f.conversations, 'conversation')}, ${quantity(f.messages, 'message')}${f.skipped ? ` (${quantity(f.skipped, 'system event')} skipped)` : ''}${range}`;
    const secrets = f.redacted ? `, ${quantity(f.redacted, 'secret')} replaced with placeholders` : '';
    const stored = o.dryRun
      ? ''
      : `\n  ${quantity(f.messagesAdded, 'new message')}, ${quantity(f.episodesCreated, 'new episode')}${secrets}`;
    return `${head}${who}${stored}${f.warnings.map((w) => `\n  warning: ${w}`).join('')}`;
  });
  if (o.dryRun) lines.push(dim('dry run: nothing was stored'));
  return lines.join('\n');
}
