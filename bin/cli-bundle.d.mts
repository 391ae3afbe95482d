export declare function buildBundle(
  dir: string,
  at: string,
  main: { entryPoints: string[] } | { stdin: { contents: string; resolveDir: string; sourcefile: string; loader: 'js' | 'ts' } },
  outName: string,
): Promise<void>;
export declare function buildCliBundle(dir: string, at?: string): Promise<void>;
export declare function sourcesHash(dir: string): string;
export declare function currentCliBundle(): Promise<string>;
