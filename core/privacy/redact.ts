import type { IncomingConversation } from '../domain/conversation.js';
import { SECRET_SHAPES, type SecretKind } from './secret-kinds.js';

/**
 * The privacy filter: secrets in a text are replaced by typed placeholders (`[secret: openai key]`)
 * before the text is stored, indexed, embedded or sent to an LLM, so the conversation still reads and
 * the secret never enters memory. Callers say how many were replaced, never what.
 */

/** What the filter looks for (core/context/privacy-config.ts validates it). */
export interface PrivacyRules {
  enabled: boolean;
  kinds: Record<SecretKind, boolean>;
  /** The person's own shapes: a name for the placeholder and a regular expression. */
  patterns: readonly { name: string; regex: string; flags?: string | undefined }[];
}

interface Compiled {
  label: string;
  patterns: RegExp[];
  needs?: RegExp | undefined;
  accept?: ((secret: string, before: string) => boolean) | undefined;
}

export interface Redacted<T> {
  value: T;
  /** How many secrets were replaced. */
  redacted: number;
}

const compiledRules = new WeakMap<PrivacyRules, Compiled[]>();

function compile(rules: PrivacyRules): Compiled[] {
  let c = compiledRules.get(rules);
  if (!c) {
    c = [
      ...SECRET_SHAPES.filter((s) => rules.kinds[s.kind]),
      // A user pattern is always global and matched whole.
      ...rules.patterns.map((p) => ({ label: p.name, patterns: [new RegExp(p.regex, [...new Set(`${p.flags ?? ''}g`)].join(''))] })),
    ];
    compiledRules.set(rules, c);
  }
  return c;
}

const PLACEHOLDER = /^\[secret:/;

/** The placeholders `redactText` leaves where secrets were, anywhere in a text. */
export const SECRET_PLACEHOLDERS = /\[secret: [^\]\n]*\]/g;

/** Told each secret replaced and its placeholder, by the one caller that must erase its copies elsewhere. */
export type SecretSeen = (secret: string, placeholder: string) => void;

/** The text with every secret the rules find replaced, and how many there were. */
export function redactText(text: string, rules: PrivacyRules, seen?: SecretSeen): Redacted<string> {
  if (!rules.enabled || text.length === 0) return { value: text, redacted: 0 };
  let out = text;
  let redacted = 0;
  for (const shape of compile(rules)) {
    if (shape.needs && !shape.needs.test(out)) continue;
    const placeholder = `[secret: ${shape.label}]`;
    for (const pattern of shape.patterns) {
      out = out.replace(pattern, (...args: unknown[]) => {
        const match = args[0] as string;
        const last = args[args.length - 1];
        const groups = typeof last === 'object' && last !== null ? (last as Record<string, string | undefined>) : {};
        const secret = groups.s ?? match;
        // What an earlier kind already replaced is not a secret again ("password is [secret: openai key]").
        if (secret.length === 0 || PLACEHOLDER.test(secret) || (shape.accept && !shape.accept(secret, groups.pre ?? ''))) return match;
        redacted++;
        seen?.(secret, placeholder);
        return groups.s === undefined ? placeholder : `${groups.pre ?? ''}${placeholder}${groups.post ?? ''}`;
      });
    }
  }
  return { value: out, redacted };
}

/** Every string in a value (in arrays and objects, at any depth) passed through `f`; dates and numbers stay. */
export function mapStrings<T>(v: T, f: (s: string) => string): T {
  const walk = (x: unknown): unknown => {
    if (typeof x === 'string') return f(x);
    if (Array.isArray(x)) return x.map(walk);
    if (typeof x === 'object' && x !== null && !(x instanceof Date))
      return Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)]));
    return x;
  };
  return walk(v) as T;
}

function redactStrings<T>(v: T, rules: PrivacyRules, count: { n: number }, seen?: SecretSeen): T {
  return mapStrings(v, (s) => {
    const r = redactText(s, rules, seen);
    count.n += r.redacted;
    return r.value;
  });
}

/**
 * A conversation with every secret replaced: its title, each message's text, attachment names and
 * captions, and the string values of the importers' metadata (a reply's quoted text, a link preview).
 */
export function redactConversation(c: IncomingConversation, rules: PrivacyRules): Redacted<IncomingConversation> {
  if (!rules.enabled) return { value: c, redacted: 0 };
  const count = { n: 0 };
  const text = (s: string) => redactStrings(s, rules, count) as string;
  const opt = (s: string | undefined) => (s === undefined ? undefined : text(s));
  const value: IncomingConversation = {
    ...c,
    ...(c.title !== undefined && { title: text(c.title) }),
    metadata: redactStrings(c.metadata, rules, count),
    messages: c.messages.map((m) => ({
      ...m,
      text: text(m.text),
      attachments: m.attachments.map((a) => ({
        ...a,
        ...(a.name !== undefined && { name: opt(a.name) }),
        ...(a.caption !== undefined && { caption: opt(a.caption) }),
      })),
      metadata: redactStrings(m.metadata, rules, count),
    })),
  };
  return { value, redacted: count.n };
}

/** Any value with every string in it filtered (an episode written by hand, a fact): dates and numbers stay. */
export function redactValue<T>(v: T, rules: PrivacyRules, seen?: SecretSeen): Redacted<T> {
  if (!rules.enabled) return { value: v, redacted: 0 };
  const count = { n: 0 };
  return { value: redactStrings(v, rules, count, seen), redacted: count.n };
}

const SECRET_NAME = /password|passwd|passphrase|passcode|\bpin\b|密码|密碼|口令/i;

/**
 * The value of something named as a secret ("person:gmail password" = "hunter2"): the name says what
 * the value alone cannot, so the whole value is one when the password kind is on.
 */
export function redactNamedSecret(name: string, value: string, rules: PrivacyRules): Redacted<string> {
  if (!rules.enabled || !rules.kinds.password || !SECRET_NAME.test(name) || PLACEHOLDER.test(value.trim())) return { value, redacted: 0 };
  return { value: '[secret: password]', redacted: 1 };
}
