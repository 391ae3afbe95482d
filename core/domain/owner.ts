import { z } from 'zod';

/** Whose memory: every row is scoped by its owner; one person's app uses `default`. */
export const DEFAULT_OWNER = 'default';
export const Owner = z.string().min(1).max(200).default(DEFAULT_OWNER);
