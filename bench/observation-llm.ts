import type { LocomoSample } from './locomo-data.js';
import { startLlmServer, type LlmServer, type RecordedRequest } from '../test/helpers/llm-server.js';

/**
 * A stand-in for the discovery LLM on LoCoMo (no model runs on our machines): an OpenAI-compatible
 * server on 127.0.0.1 that answers the real discovery prompts. The reconstruction is a fixed line; the
 * gap analysis returns LoCoMo's own annotated observations (facts about a speaker, with the turns they
 * came from) for the messages shown in the prompt. So the whole pipeline runs for real — prompts,
 * validation, keys, de-duplication, links, indexing, search — with oracle-quality facts: an upper
 * bound of what a good model's discovery adds to recall, not a measurement of any model.
 */
export async function startObservationLlm(samples: readonly LocomoSample[]): Promise<LlmServer> {
  // "[n] Www YYYY-MM-DD HH:MM Speaker: text" → which dia_id each numbered line is.
  // dia_ids repeat across samples ("D1:3" is in every one), so lines and facts are keyed by sample too.
  const byLine = new Map<string, string>();
  for (const s of samples)
    for (const m of s.conversation.messages)
      if (m.id !== undefined) byLine.set(`${m.speaker}: ${m.text.replace(/\s+/g, ' ').trim()}`.slice(0, 120), `${s.id}|${m.id}`);
  const observations = samples.flatMap((s) => s.observations.map((o) => ({ ...o, diaIds: o.diaIds.map((d) => `${s.id}|${d}`) })));
  const server = await startLlmServer({ model: 'locomo-observations' });
  server.on((r) => r.prompt.includes('Task: semantic-reconstruct'), {
    content: 'Speaker A: Hi, how are things?\nSpeaker B: Fine, busy with work and family.',
  });
  server.on(
    (r) => r.prompt.includes('Task: semantic-gaps'),
    (r: RecordedRequest) => {
      const shown = new Map<string, number>();
      for (const m of r.prompt.matchAll(/^\[(\d+)\] \w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2} (.*)$/gm)) {
        const id = byLine.get(m[2]!.replace(/…$/, '').slice(0, 120));
        if (id) shown.set(id, Number(m[1]));
      }
      const gaps = observations
        .filter((o) => o.diaIds.length > 0 && o.diaIds.every((d) => shown.has(d)))
        .map((o) => ({
          key: `person:${o.speaker} ${o.text.split(/\s+/).slice(1, 9).join(' ')}`,
          value: o.text,
          context: `${o.speaker} said so`,
          gap_type: 'personal_fact',
          confidence: 0.9,
          messages: o.diaIds.map((d) => shown.get(d)!),
        }));
      return { json: { knowledge_gaps: gaps, relationships: [] } };
    },
  );
  return server;
}
