// Import rules, checked by `npm run lint` (dependency-cruiser): imports point down,
// schemas/ <- routers/ <- server/, with no cycle between files or folders of the product.
const PRODUCT = '^(schemas|routers|server|client|packages/[^/]+/src|index\\.ts$)';
const TEST_FILE = '\\.test\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-file-cycle',
      comment: 'A file that reaches itself through its imports: move what both need below both.',
      severity: 'error',
      from: { path: PRODUCT },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      comment: 'Two folders that import each other: move what both need below both.',
      severity: 'error',
      scope: 'folder',
      from: { path: PRODUCT },
      to: { circular: true },
    },
    {
      name: 'server-folders-import-not-the-top',
      comment:
        "server/'s own files (app.ts, config.ts, main.ts, ...) assemble its folders, so a folder importing one of them is a loop between folders; " +
        'a development entry point, which nothing imports, may.',
      severity: 'error',
      from: { path: '^server/[^/]+/', pathNot: '^server/dev/dev-loop\\.ts$' },
      to: { path: '^server/[^/]+\\.ts$' },
    },
    {
      name: 'production-loads-no-dev-code',
      comment:
        'server/dev/ (embedded MongoDB, dev loop, token banner) is loaded only when a development run asks for it, by import(); ' +
        'the package entry re-exports resolveMongo for apps and the bench, which loads the embedded MongoDB the same way.',
      severity: 'error',
      from: { path: PRODUCT, pathNot: '^(server/dev/|index\\.ts$)' },
      to: { path: '^server/dev/', dependencyTypesNot: ['dynamic-import', 'type-only', 'type-import'] },
    },
    {
      name: 'schemas-import-nothing-above',
      comment: 'schemas/ is the bottom layer: it imports nothing of the project.',
      severity: 'error',
      from: { path: '^schemas/' },
      to: { path: '^(routers|server|client|packages|tools|bench|tests)/' },
    },
    {
      name: 'routers-import-no-server',
      comment: 'routers/ holds the ports; server/ implements them.',
      severity: 'error',
      from: { path: '^routers/' },
      to: { path: '^(server|client|packages|tools|bench|tests)/' },
    },
    {
      name: 'packages-import-no-service',
      comment: 'A workspace package stands alone: it imports nothing of the service, nor do its own tests (they bring their own routers).',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^(schemas|routers|server|client|tests|index\\.ts$)' },
    },
    {
      name: 'product-imports-no-tests-or-bench',
      comment: 'Nothing the package ships reaches into tests/ or bench/.',
      severity: 'error',
      from: { path: PRODUCT, pathNot: TEST_FILE },
      to: { path: '^(tests|bench)/' },
    },
    {
      name: 'bench-imports-no-tests',
      comment: 'bench/ shares with the tests only what lives in a package of its own (@plant-store/service-launcher).',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^tests/' },
    },
    {
      name: 'tests-import-no-bench',
      comment: 'The tests do not depend on the benchmark.',
      severity: 'error',
      from: { path: '^tests/' },
      to: { path: '^bench/' },
    },
    {
      name: 'bench-imports-only-the-package-entry',
      comment: 'bench/ measures the package as apps get it: from index.ts, what the package exports, never a deep path.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^(schemas|routers|server|client|packages)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The service's test files are left out; a package's own are cruised, so that they too stand alone.
    exclude: { path: ['(^|/)(node_modules|dist)/', `^(?!packages/)[^]*${TEST_FILE}`] },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: they tie modules together as much as value imports.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { conditionNames: ['@plant-store/source', 'import', 'require', 'node', 'default'], exportsFields: ['exports'] },
  },
};
