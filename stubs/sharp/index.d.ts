/** Refuses every image: see index.js. */
export default function sharp(...args: unknown[]): never;
