// The MongoDB server version the emulator reports (mongodb-memory-server compares it with the one
// it was asked for, so the resolver asks for exactly this one to keep runs quiet).
export const EMULATOR_VERSION = '8.0.4';
