export declare function runsLong(argv: readonly string[]): boolean;
