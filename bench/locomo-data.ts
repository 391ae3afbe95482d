import fs from 'node:fs';
import { z } from 'zod';
import type { OpInput } from '../core/api/contract.js';

/** LoCoMo's own JSON (Snap Research): a list of samples with `conversation`, `qa`, `sample_id`. */
const Turn = z.object({
  speaker: z.string(),
  dia_id: z.string(),
  text: z.string(),
  blip_caption: z.string().optional(),
});
const Qa = z.object({
  question: z.string(),
  evidence: z.array(z.string()).default([]),
  category: z.number().int(),
});
/** Per session, per speaker: [fact, evidence dia_id(s)] written by LoCoMo's annotators. */
const Observations = z.record(z.string(), z.record(z.string(), z.array(z.tuple([z.string(), z.union([z.string(), z.array(z.string())])]))));
const Sample = z.object({
  sample_id: z.string(),
  conversation: z.record(z.string(), z.unknown()),
  qa: z.array(Qa),
  observation: Observations.default({}),
});
export type LocomoQa = z.infer<typeof Qa>;

const months = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → ISO, read as UTC (LoCoMo gives no zone). */
export function locomoTime(s: string): string {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+(\w+),?\s+(\d{4})/i.exec(s);
  if (!m) throw new Error(`unrecognised LoCoMo date-time "${s}"`);
  let hour = Number(m[1]) % 12;
  if (m[3]!.toLowerCase() === 'pm') hour += 12;
  const month = months.indexOf(m[5]!.toLowerCase());
  if (month < 0) throw new Error(`unrecognised month in "${s}"`);
  // Written with its offset: a LoCoMo session is read on its own clock, whatever zone this machine is in.
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString().replace(/Z$/, '+00:00');
}

/** A fact about a speaker with the turns it was drawn from. */
export interface LocomoObservation {
  speaker: string;
  text: string;
  diaIds: string[];
}

export interface LocomoSample {
  id: string;
  conversation: OpInput<'ingestConversation'>['conversation'];
  questions: LocomoQa[];
  observations: LocomoObservation[];
}

/** Turns every session of a sample into one conversation, the way the benchmark is run. */
export function loadLocomo(file: string): LocomoSample[] {
  const samples = z.array(Sample).parse(JSON.parse(fs.readFileSync(file, 'utf8')));
  return samples.map((s) => {
    const c = s.conversation;
    const sessions = Object.keys(c)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const messages = sessions.flatMap((n) => {
      const when = locomoTime(String(c[`session_${n}_date_time`]));
      return z
        .array(Turn)
        .parse(c[`session_${n}`])
        .map((t) => ({
          id: t.dia_id,
          speaker: t.speaker,
          text: t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text,
          timestamp: when,
        }));
    });
    const observations = Object.values(s.observation).flatMap((bySpeaker) =>
      Object.entries(bySpeaker).flatMap(([speaker, facts]) =>
        facts.map(([text, ids]) => ({
          speaker,
          text,
          diaIds: (Array.isArray(ids) ? ids : [ids]).flatMap((x) => x.split(/[;,\s]+/)).filter(Boolean),
        })),
      ),
    );
    return { id: s.sample_id, conversation: { id: s.sample_id, messages }, questions: s.qa, observations };
  });
}
