export declare const TEMPLATE_ENV: 'TEST_STORE_TEMPLATE';
export declare function templateState(): { dir: string | null; enabled: boolean; tar: Blob | null; used: { memory: number; disk: number } };
export declare function installStoreTemplate(dir: string): void;
