// ESLint flat config: typescript-eslint's recommended rules (syntax only, no type
// information, so `npm run lint` stays fast) plus the context-boundary rule.
//
// Boundary rule (DESIGN.md rule 1): a bounded context under libs/<ctx> is used by others only
// through its public index, `@gensvc/<ctx>`. Forbidden: deep alias paths (`@gensvc/<ctx>/...`)
// and relative paths into another context (`../../<ctx>/src/...`) or into apps/. The one
// exception is a context's test kit, `@gensvc/<ctx>/testing/...`, in tests. `@gensvc/sdk` is a
// package (packages/sdk), not a context: its entry points (`@gensvc/sdk/node`, ...) are public.
// libs/shared/src/architecture.int.spec.ts checks the same rule by scanning the sources.
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

const contexts = readdirSync(new URL('./libs', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

const testFiles = ['**/*.spec.ts', '**/*.e2e-spec.ts', 'src/testing/**/*.ts'];

/** Deep alias paths, except into `own` context and (in tests) test kits. */
const deepAlias = (allowTesting, own) => {
  const allowed = ['sdk/', ...(own ? [`${own}/`] : []), ...(allowTesting ? ['[^/]+/testing/'] : [])];
  return {
    regex: `^@gensvc/${allowed.length ? `(?!${allowed.join('|')})` : ''}[^/]+/.+`,
    message: 'Import another context only through its public index: `@gensvc/<context>` (deep paths reach its internals).',
  };
};

const boundaryRules = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/** Per context: no deep aliases, no relative paths into other contexts or apps. */
const contextBlocks = contexts.flatMap((ctx) => {
  const others = contexts.filter((c) => c !== ctx);
  const relative = [
    {
      regex: `^\\.{1,2}/(?:.*/)?(?:${others.join('|')})/src(?:/|$)`,
      message: `A relative path into another context: use its public index (@gensvc/<context>) instead.`,
    },
    { regex: '^\\.{1,2}/(?:.*/)?apps/', message: 'Libraries must not import the apps that compose them.' },
  ];
  return [
    { files: [`libs/${ctx}/**/*.ts`], rules: boundaryRules([deepAlias(false, ctx), ...relative]) },
    { files: testFiles.map((f) => `libs/${ctx}/${f}`), rules: boundaryRules([deepAlias(true, ctx), ...relative]) },
  ];
});

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
    rules: boundaryRules([deepAlias(false), { regex: '^\\.{1,2}/(?:.*/)?libs/', message: 'Import a context through @gensvc/<context>, not by a relative path.' }]),
  },
  {
    files: ['test/**/*.ts', 'apps/**/*.spec.ts'],
    rules: boundaryRules([deepAlias(true), { regex: '^\\.{1,2}/(?:.*/)?libs/', message: 'Import a context through @gensvc/<context>, not by a relative path.' }]),
  },
  ...contextBlocks,
);
