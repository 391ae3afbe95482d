import { z } from 'zod';
import { SECRET_KINDS, type SecretKind } from '../privacy/secret-kinds.js';

const allKinds = Object.fromEntries(SECRET_KINDS.map((k) => [k, true])) as Record<SecretKind, boolean>;

const UserPattern = z
  .object({
    /** The placeholder's words: `[secret: <name>]`. */
    name: z.string().trim().min(1).max(40),
    regex: z.string().min(1),
    flags: z
      .string()
      .regex(/^[imsu]*$/, 'flags: only i, m, s and u')
      .optional(),
  })
  .refine(
    (p) => {
      try {
        return !new RegExp(p.regex, p.flags).test('');
      } catch {
        return false;
      }
    },
    { message: 'not a regular expression, or one that matches an empty text', path: ['regex'] },
  );

/** The privacy filter (core/privacy): on by default, every kind of secret on; the person's own patterns. */
export const PrivacyConfig = z.object({
  enabled: z.boolean().default(true),
  kinds: z
    .object(Object.fromEntries(SECRET_KINDS.map((k) => [k, z.boolean().default(true)])) as Record<SecretKind, z.ZodDefault<z.ZodBoolean>>)
    .default(allKinds),
  patterns: z.array(UserPattern).default([]),
});
export type PrivacyConfig = z.infer<typeof PrivacyConfig>;
