// ESLint flat config: typescript-eslint's recommended rules (syntax only, no type
// information, so `npm run lint` stays fast) plus the context-boundary rule.
//
// Boundary rule (DESIGN.md rule 1): a library under libs/ is a bounded context unless
// architecture.json lists it as a kernel library (`kernel`, `event-sourcing`, ...) or an infrastructure library (`storage`,
// the adapters: imported through its index by apps and tests only, never by another library's
// production code). Another library uses a context only
// through its Nest-free contracts entry point, `@gensvc/<ctx>/contracts`; its module index,
// `@gensvc/<ctx>`, is for apps and end-to-end tests. A kernel library is used through its index.
// Forbidden everywhere: deep alias paths into another library (`@gensvc/<lib>/...` other than
// `contracts`), relative paths into another library or into apps/. A library's test kit,
// `@gensvc/<lib>/testing/...`, only in tests. libs/kernel/src/architecture.int.spec.ts checks the
// same rules by scanning the sources, and also that the context graph has no cycle.
// `@gensvc/sdk` (packages/sdk) is a package, not a library: its entry points are public.
import { readdirSync, readFileSync } from 'node:fs';
import tseslint from 'typescript-eslint';

const libraries = readdirSync(new URL('./libs', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);
const { kernel, infrastructure = [] } = JSON.parse(readFileSync(new URL('./architecture.json', import.meta.url), 'utf8'));
const contexts = libraries.filter((l) => !kernel.includes(l) && !infrastructure.includes(l));

const testFiles = ['**/*.spec.ts', '**/*.e2e-spec.ts', 'src/testing/**/*.ts'];

/**
 * Alias imports of other libraries that are not allowed: anything but `contracts` (and, in
 * tests, `testing/...`) after a library's name; for a library (not an app), a context's bare
 * module index too. `own` is the importing library (any path into itself is fine).
 */
const aliasRule = ({ own, allowTesting, allowContextIndex }) => {
  const others = `(?!${[...(own ? [own] : [])].map((o) => `${o}(?:/|$)`).join('|') || '$^'})`;
  const okPaths = ['contracts$', ...(allowTesting ? ['testing/'] : [])].join('|');
  const kernelAlt = [...kernel, ...infrastructure].join('|');
  const contextAlt = contexts.join('|');
  return [
    {
      regex: `^@gensvc/${others}(?:${kernelAlt})/(?!${allowTesting ? 'testing/' : '$^'}).+`,
      message: 'Import a kernel or infrastructure library through its index: `@gensvc/kernel`, `@gensvc/event-sourcing`, `@gensvc/storage`.',
    },
    {
      regex: `^@gensvc/${others}(?:${contextAlt})/(?!${okPaths}).+`,
      message: "Another context's internals: import only its contracts, `@gensvc/<context>/contracts`.",
    },
    ...(allowContextIndex
      ? []
      : [{ regex: `^@gensvc/${others}(?:${contextAlt})$`, message: 'A library imports another context only through `@gensvc/<context>/contracts` (the module index is for apps).' }]),
  ];
};

const boundaryRules = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/** Per library: aliases as above, no relative paths into other libraries or apps. */
const libraryBlocks = libraries.flatMap((lib) => {
  const others = libraries.filter((c) => c !== lib);
  const relative = [
    {
      regex: `^\\.{1,2}/(?:.*/)?(?:${others.join('|')})/src(?:/|$)`,
      message: 'A relative path into another library: use `@gensvc/<context>/contracts` (or a kernel library such as `@gensvc/kernel`) instead.',
    },
    { regex: '^\\.{1,2}/(?:.*/)?apps/', message: 'Libraries must not import the apps that compose them.' },
  ];
  const adapters = infrastructure.includes(lib)
    ? []
    : [{ regex: `^@gensvc/(?:${infrastructure.join('|') || '$^'})$`, message: 'The storage adapters are composed by the apps: a library uses the ports of `@gensvc/event-sourcing` and `@gensvc/blob-store` (tests may import `@gensvc/storage`).' }];
  return [
    { files: [`libs/${lib}/**/*.ts`], rules: boundaryRules([...aliasRule({ own: lib, allowTesting: false, allowContextIndex: false }), ...adapters, ...relative]) },
    { files: testFiles.map((f) => `libs/${lib}/${f}`), rules: boundaryRules([...aliasRule({ own: lib, allowTesting: true, allowContextIndex: false }), ...relative]) },
  ];
});

const relativeIntoLibs = { regex: '^\\.{1,2}/(?:.*/)?libs/', message: 'Import a library through @gensvc/<lib>, not by a relative path.' };

export default tseslint.config(
  { ignores: ['dist/**', '**/dist/**', 'packages/sdk/src/generated/**', 'node_modules/**', 'coverage/**', 'data/**', '.test-servers/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // CommonJS tooling files (jest configs, scripts/*.js).
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // ES module packages: the CLI's launcher.
    files: ['apps/cli/bin/*.js'],
    languageOptions: { sourceType: 'module', globals: { process: 'readonly' } },
  },
  {
    files: ['apps/**/*.ts', 'bench/**/*.ts'],
    rules: boundaryRules([...aliasRule({ allowTesting: false, allowContextIndex: true }), relativeIntoLibs]),
  },
  {
    files: ['test/**/*.ts', 'apps/**/*.spec.ts'],
    rules: boundaryRules([...aliasRule({ allowTesting: true, allowContextIndex: true }), relativeIntoLibs]),
  },
  ...libraryBlocks,
);
