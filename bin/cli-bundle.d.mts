export declare function buildCliBundle(dir: string, at?: string): Promise<void>;
export declare function sourcesHash(dir: string): string;
export declare function currentCliBundle(): Promise<string>;
