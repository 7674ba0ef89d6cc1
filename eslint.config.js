// Lint rules: the recommended type-aware sets, nothing exotic; layout is left to Prettier.
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', '**/dist/', 'coverage/', 'test-artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', '.dependency-cruiser.js'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      // Fastify hooks and handlers are async by convention, awaiting or not.
      '@typescript-eslint/require-await': 'off',
    },
  },
  { files: ['**/*.js'], ...tseslint.configs.disableTypeChecked },
  // Layout is Prettier's (npm run format): no rule of ESLint's argues with it.
  prettier,
  // Except the one Prettier cannot keep: its width, where a long string or comment would cross it.
  {
    files: ['schemas/**/*.ts', 'routers/**/*.ts', 'server/**/*.ts', 'client/**/*.ts', 'packages/*/src/**/*.ts', 'index.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-len': ['error', { code: 140, ignoreUrls: true }] },
  },
);
