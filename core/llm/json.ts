import { z } from 'zod';

/**
 * Structured-output validation: models wrap JSON in code fences, prepend a sentence, or (reasoning
 * models served through Ollama) emit a <think> block first. We accept the first JSON object in the reply
 * and let the zod schema decide; whatever is wrong is described in words the repair prompt can send back.
 */

export type ParsedReply<T> = { ok: true; value: T } | { ok: false; error: string };

function stripThinking(text: string): string {
  return text.replace(/<think>[\s\S]*?<\/think>/gi, '').replace(/^[\s\S]*<\/think>/i, '');
}

/** The JSON text inside a reply: a fenced block, or the span from the first `{` to the last `}`. */
export function extractJson(reply: string): string {
  const text = stripThinking(reply).trim();
  const fenced = /```(?:json|JSON)?\s*\n?([\s\S]*?)```/.exec(text);
  if (fenced?.[1]?.trim()) return fenced[1].trim();
  if (text.startsWith('{') || text.startsWith('[')) return text;
  const from = text.indexOf('{');
  const to = text.lastIndexOf('}');
  return from >= 0 && to > from ? text.slice(from, to + 1) : text;
}

export function describeIssues(error: z.ZodError, max = 8): string {
  const lines = error.issues.slice(0, max).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  if (error.issues.length > max) lines.push(`… and ${error.issues.length - max} more problems`);
  return lines.join('; ');
}

export function parseReply<T>(reply: string, schema: z.ZodType<T>): ParsedReply<T> {
  let data: unknown;
  const json = extractJson(reply);
  if (!json) return { ok: false, error: 'the reply was empty; it must be one JSON object' };
  try {
    data = JSON.parse(json);
  } catch (e) {
    return { ok: false, error: `the reply is not valid JSON (${(e as Error).message}); it must be one JSON object and nothing else` };
  }
  const r = schema.safeParse(data);
  return r.success ? { ok: true, value: r.data } : { ok: false, error: describeIssues(r.error) };
}

/** Keeps the items a schema accepts and drops the rest: one malformed item must not cost the whole reply a repair. */
export function keepValid<T>(item: z.ZodType<T>): (xs: unknown[]) => T[] {
  return (xs) =>
    xs.flatMap((x) => {
      const r = item.safeParse(x);
      return r.success ? [r.data] : [];
    });
}

/** An optional list of lenient items: missing or malformed → empty. */
export function lenientList<T>(item: z.ZodType<T>) {
  return z.array(z.unknown()).catch([]).default([]).transform(keepValid(item));
}
