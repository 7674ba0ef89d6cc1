export * from './plant.js';
export * from './error.js';
