export declare const fastapiSource: string;
export declare const fastapiCopy: string;
/** Sync external/fastapi into dist/fastapi; returns the number of files written or removed. */
export declare function copyFastapi(options?: { log?: (line: string) => void }): number;
