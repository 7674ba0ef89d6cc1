/** Absolute path of bin/mongod, the launcher that runs the emulator like a mongod binary. */
export declare const mongodBinaryPath: string;

/** mongodBinaryPath once the emulator is built; otherwise throws an Error saying how to build it. */
export declare function ensureBuilt(): string;
