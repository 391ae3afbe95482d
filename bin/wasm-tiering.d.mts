export declare function wasmTiering(argv: readonly string[]): string | null;
