/**
 * Tool results as a model reads them: Markdown, every date absolute (weekday, date, time and UTC
 * offset), every memory with its id and its sources (who said it, when).
 */
import type { OpOutput } from '../api/contract.js';
import type { SearchResultItem } from '../api/search-contract.js';
import { describeSpan, formatOffset, periodsRead, quantity, toLocal } from '../text/describe.js';
import { factText } from '../text/fact-text.js';
import { excerpt } from '../text/quote.js';
import { tokenize } from '../text/tokenize.js';

/** "Tuesday, 2 January 2024, 09:00–09:20 (UTC+01:00)" */
export const span = (start: string, end: string, offset: number) => describeSpan(new Date(start), new Date(end), offset);
export const instant = (iso: string, offset: number) => span(iso, iso, offset);
/** "2024-01-02 09:01 UTC+01:00": for source lists, where the weekday would only repeat. */
export const stamp = (iso: string, offset: number) =>
  `${toLocal(new Date(iso), offset).toISOString().slice(0, 16).replace('T', ' ')} ${formatOffset(offset)}`;

const oneLine = (s: string, max = 400) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
};

type Source = SearchResultItem['sources'][number];
/**
 * Who said a memory's source messages, and when. Under an episode, whose line states its day and
 * zone, a message of that day is stamped with its time alone ("Alice 08:31"), of another day with its
 * date too: the full stamp six times over cost a result ~50 tokens of a companion's context.
 */
function sourcesLine(sources: readonly Source[], offset: number, episodeStart?: string): string {
  if (sources.length === 0) return '';
  const day = episodeStart && stamp(episodeStart, offset).slice(0, 10);
  const when = (iso: string) => {
    const full = stamp(iso, offset);
    return day === undefined ? `(${full})` : full.startsWith(day) ? full.slice(11, 16) : full.slice(0, 16);
  };
  const shown = sources.slice(0, 6).map((s) => `${s.speaker} ${when(s.sentAt)}`);
  return `Sources: ${shown.join('; ')}${sources.length > 6 ? `; and ${sources.length - 6} more` : ''}`;
}

/**
 * The lines of an episode's text that hold the words the search matched and its summary does not say,
 * those with the most of them first: a summary of a long talk seldom quotes the turn that was asked
 * about, and without it a model would have to fetch the episode to know why it was found.
 */
function matchingLines(r: Extract<SearchResultItem, { kind: 'episode' }>, max = 3): string[] {
  const terms = new Set(r.reason.terms);
  if (terms.size === 0) return [];
  const said = new Set(tokenize(r.summary));
  const lines = r.text
    .split('\n')
    .map((line, i) => ({ line, i, hits: new Set(tokenize(line).filter((t) => terms.has(t) && !said.has(t))).size }))
    .filter((x) => x.hits > 0);
  return lines
    .sort((a, b) => b.hits - a.hits || a.i - b.i)
    .slice(0, max)
    .sort((a, b) => a.i - b.i)
    .map(({ line }) => {
      // A long turn (a chatbot's answer) is quoted by its sentences that hold the words, after its speaker.
      const speaker = /^[^:\n]{1,80}: /u.exec(line)?.[0] ?? '';
      return speaker + excerpt(line.slice(speaker.length), [...terms], LINE_WORDS);
    });
}

/** How long a quoted line of a search result may be, in words. */
const LINE_WORDS = 60;

export function renderResult(r: SearchResultItem, n: number): string {
  if (r.kind === 'episode') {
    return [
      `${n}. Episode **${r.title}** — ${span(r.start, r.end, r.utcOffsetMin)} · id \`${r.id}\``,
      `   ${oneLine(r.summary || r.text)}`,
      ...matchingLines(r).map((l) => `   > ${l}`),
      `   ${sourcesLine(r.sources, r.utcOffsetMin, r.start)}`,
    ]
      .filter((l) => l.trim())
      .join('\n');
  }
  return [
    `${n}. Fact \`${r.key}\` (version ${r.version}, confidence ${r.confidence.toFixed(2)}, as of ${instant(r.updatedAt, 0)}) · id \`${r.id}\``,
    `   ${oneLine(r.text)}`,
    `   ${sourcesLine(r.sources, 0)}`,
    r.episodeIds.length ? `   Episodes: ${r.episodeIds.map((id) => `\`${id}\``).join(', ')}` : '',
  ]
    .filter((l) => l.trim())
    .join('\n');
}

export function renderSearch(o: OpOutput<'search'>): string {
  // The periods the query named, as read, so the model can tell the person which days it looked at.
  const periods = periodsRead(o.periods);
  if (o.results.length === 0) return `No memories match “${o.query}”${periods ? ` (${periods})` : ''}.`;
  const head = `${quantity(o.results.length, 'memory')} for “${o.query}” (${o.mode} search, ${periods ? `${periods}, what was said then or of it before first` : 'best first'}):`;
  return [head, ...o.results.map((r, i) => renderResult(r, i + 1)), ...o.warnings.map((w) => `Note: ${w}`)].join('\n');
}

export function renderRemember(prompt: string, o: OpOutput<'remember'>): string {
  if (o.items.length === 0) return `No facts about “${prompt}” yet.`;
  return [`Facts for “${prompt}”, best first:`, ...o.items.map((r, i) => renderResult(r, i + 1))].join('\n');
}

export function renderEpisode(o: OpOutput<'getEpisode'>): string {
  const e = o.episode;
  const messages = o.messages.map((m) => `- ${stamp(m.sentAt, m.utcOffsetMin)} **${m.speaker}**: ${m.text}`);
  return [
    `## ${e.title}`,
    `${span(e.start, e.end, e.utcOffsetMin)} · episode \`${e.id}\` · importance ${e.importance.toFixed(2)}`,
    '',
    e.content,
    '',
    `### Source messages (${o.messages.length})`,
    ...messages,
  ].join('\n');
}

export function renderWritten(o: OpOutput<'memorize'>): string {
  const what = {
    created: 'Remembered a new fact',
    evolved: `Updated the fact (was: “${o.previousValue ?? ''}”)`,
    corrected: `Corrected the fact (was wrongly: “${o.previousValue ?? ''}”)`,
    reinforced: 'Already known; it is now more certain',
    merged: 'Merged into a fact already known',
  }[o.action];
  const evicted = o.evicted.length ? `\nTo stay within capacity, forgot: ${o.evicted.map((x) => `\`${x.key}\``).join(', ')}` : '';
  return `${what}: \`${o.key}\` version ${o.version} — ${factText(o.fact)}${evicted}`;
}

export function renderHistory(o: OpOutput<'getKnowledge'>): string {
  const f = o.fact;
  const versions = o.timeline.map((v) => {
    const how = v.version === 1 ? 'learnt' : v.link === 'corrects' ? 'corrected the one before' : 'updated the one before';
    const from = v.episode
      ? ` — from episode “${v.episode.title}” (${instant(v.episode.start, v.episode.utcOffsetMin)}, \`${v.episode.id}\`)`
      : '';
    return `- v${v.version}, ${instant(v.createdAt, 0)}, ${how}${v.corrected ? ' (later found wrong)' : ''}: ${v.value}${from}`;
  });
  const sources = o.sources.slice(0, 8).map((m) => `- ${stamp(m.sentAt, m.utcOffsetMin)} ${m.speaker}: “${oneLine(m.text, 200)}”`);
  return [
    `## \`${f.key}\` — ${factText(f)}`,
    `Now version ${f.version}, confidence ${f.confidence.toFixed(2)}, tier ${f.tier} · id \`${f.id}\``,
    '',
    '### Versions, oldest first',
    ...versions,
    ...(sources.length ? ['', '### Said in', ...sources] : []),
  ].join('\n');
}

export function renderVersion(o: OpOutput<'getKnowledgeVersion'>): string {
  const v = o.version;
  return `\`${o.fact.key}\` version ${v.version} (${instant(v.createdAt, 0)}${v.link ? `, ${v.link} the one before` : ''}${v.corrected ? ', later found wrong' : ''}): ${v.value}${v.context ? ` (${v.context})` : ''}`;
}
