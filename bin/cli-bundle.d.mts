export declare function buildCliBundle(outfile: string): Promise<void>;
export declare function sourcesHash(dir: string): string;
export declare function currentCliBundle(): Promise<string>;
