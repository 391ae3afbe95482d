export declare const SERVER_TIERING: string;
export declare function wasmTiering(argv: readonly string[]): string | null;
