export declare function engineEnv(platform?: NodeJS.Platform): Record<string, string>;
