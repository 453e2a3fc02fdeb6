export declare const fastapiSource: string;
export declare const fastapiCopy: string;
/** Sync external/fastapi into dist/fastapi; returns the number of files written or removed. */
export declare function copyFastapi(options?: { log?: (line: string) => void }): number;
export declare const pythonWebSource: string;
export declare const pythonWebCopy: string;
/** Sync external/python-web into dist/python-web; returns the number of files written or removed. */
export declare function copyPythonWeb(options?: { log?: (line: string) => void }): number;
