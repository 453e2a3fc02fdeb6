// The part of sql.js's API the store uses (the package ships no types; @types/sql.js would add
// @types/emscripten for these few lines).
declare module 'sql.js' {
  type SqlValue = number | string | Uint8Array | null;
  interface QueryExecResult {
    columns: string[];
    values: SqlValue[][];
  }
  interface Statement {
    bind(values?: SqlValue[] | Record<string, SqlValue>): boolean;
    step(): boolean;
    getAsObject(): Record<string, SqlValue>;
    run(values?: SqlValue[] | Record<string, SqlValue>): void;
    free(): boolean;
  }
  interface Database {
    run(sql: string, params?: SqlValue[] | Record<string, SqlValue>): Database;
    exec(sql: string, params?: SqlValue[]): QueryExecResult[];
    prepare(sql: string, params?: SqlValue[]): Statement;
    export(): Uint8Array;
    close(): void;
  }
  interface SqlJsStatic {
    Database: new (data?: ArrayLike<number> | Buffer | null) => Database;
  }
  export type { Database, SqlValue, SqlJsStatic };
  export default function initSqlJs(config?: { locateFile?: (file: string) => string }): Promise<SqlJsStatic>;
}
