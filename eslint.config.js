// ESLint (flat config): typescript-eslint's syntactic rules (no type information, so it stays fast), no import
// cycles, and the architecture of docs/architecture.md: each folder of core/ imports only from the folders listed before it.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'eslint/config';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';

const ROOT = path.dirname(fileURLToPath(import.meta.url));

/** core/'s folders by layer, lowest first (docs/architecture.md). Folders of one row may not import each other… */
const LAYERS = [
  ['domain'],
  ['text', 'privacy'],
  ['embed', 'llm', 'companions'],
  ['store'],
  ['context'],
  ['retrieval'],
  ['episodes'],
  ['facts'],
  ['forgetting'],
  ['jobs'],
  ['ingest'],
  ['api'],
  ['engine'],
  ['mcp'],
  ['http', 'cli'],
];
/** …except where they already did: `nemori web` (core/cli) starts the HTTP bridge (core/http). */
const SAME_LAYER_ALLOWED = { cli: ['http'] };

const FOLDERS = LAYERS.flat();
const layerOf = (folder) => LAYERS.findIndex((row) => row.includes(folder));

const layerZones = FOLDERS.map((folder) => {
  const layer = layerOf(folder);
  const sameLayer = SAME_LAYER_ALLOWED[folder] ?? [];
  const allowed = FOLDERS.filter((other) => layerOf(other) < layer || sameLayer.includes(other));
  return {
    target: `./core/${folder}`,
    from: [
      ...FOLDERS.filter((other) => other !== folder && !allowed.includes(other)).map((other) => `./core/${other}`),
      './electron',
      './renderer',
    ],
    message: `core/${folder} is layer ${layer + 1} of docs/architecture.md: it imports only ${allowed.length ? `core/{${allowed.join(',')}}` : 'packages'}.`,
  };
});

const otherZones = [
  {
    target: ['./core/**', './electron/**', './renderer/**', './bench/**', './bin/**'],
    from: `./core/!(${FOLDERS.join('|')})/**`,
    message: 'This folder of core/ is not in the layer table of docs/architecture.md.',
  },
  { target: './renderer', from: './core', except: ['./api'], message: 'renderer/ imports only core/api (docs/architecture.md).' },
  { target: './renderer', from: './electron', message: 'renderer/ imports only core/api (docs/architecture.md).' },
];

// no-restricted-syntax selectors. `\u002F` is a slash inside a selector's regular expression.
const SQL = String.raw`/\b(SELECT|INSERT INTO|DELETE FROM|UPDATE \w+ SET|CREATE (TABLE|INDEX)|ALTER TABLE)\b/`;
const noSqlText = [
  { selector: `Literal[value=${SQL}]`, message: 'SQL text belongs in core/store (docs/architecture.md).' },
  { selector: `TemplateElement[value.raw=${SQL}]`, message: 'SQL text belongs in core/store (docs/architecture.md).' },
];
const noDynamicPglite = [
  {
    selector: String.raw`ImportExpression[source.value=/^@electric-sql\u002Fpglite/]`,
    message: 'Only core/store imports PGlite (docs/architecture.md).',
  },
];
const CORE = String.raw`/(^|\u002F)core\u002F/`;
const rendererTypeImportsOnly = [
  {
    selector: `ImportDeclaration[importKind!='type'][source.value=${CORE}]`,
    message: 'renderer/ takes core/api with `import type` only (an inline `type` still loads the module).',
  },
  {
    selector: `:matches(ExportNamedDeclaration, ExportAllDeclaration)[exportKind!='type'][source.value=${CORE}]`,
    message: 'renderer/ takes core/api with `export type` only.',
  },
  { selector: `ImportExpression[source.value=${CORE}]`, message: 'renderer/ takes core/api with `import type` only.' },
];
const notInLayerTable = [
  {
    selector: 'Program',
    message: 'This folder of core/ is not in the layer table of docs/architecture.md: move the file, or add the folder there.',
  },
];

const TS = '**/*.{ts,tsx,mts,cts}';
const APP = ['core', 'electron', 'renderer', 'bench', 'bin'].map((dir) => `${dir}/**/*.{ts,tsx,mts,cts,js,mjs,cjs}`);

export default defineConfig(
  { ignores: ['out/', 'dist/', 'coverage/', 'test-artifacts/', 'test/e2e/artifacts/', 'test/fixtures/tiny-model/nemori-tiny/'] },
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // Off: the existing hits are all deliberate, stripping control characters from imported names and text.
      'no-control-regex': 'off',
      // Off: flags defensive initialisation (`let x = null` before a try, `i = from` before a loop) and
      // `++n` in a last yield; tsc's definite-assignment checks cover the harmful side.
      'no-useless-assignment': 'off',
      // A `let` read (by a callback) before its one assignment cannot become a `const` there.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: [TS],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx', '.mts', '.cts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: [path.join(ROOT, 'tsconfig.json'), path.join(ROOT, 'tsconfig.web.json')],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      // No file-level import cycles (import-x does not follow `import type`, which is erased).
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: [...layerZones, ...otherZones] }],
      // A leading underscore marks a binding left unused on purpose (e.g. `const { a: _, ...rest } = o`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  { files: ['**/*.{js,mjs,cjs}'], languageOptions: { globals: globals.node } },

  // Only core/store imports PGlite or contains SQL text (docs/architecture.md); tests may import anything.
  {
    files: APP,
    ignores: ['core/store/**'],
    rules: {
      'no-restricted-syntax': ['error', ...noSqlText, ...noDynamicPglite],
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ regex: '^@electric-sql/pglite', message: 'Only core/store imports PGlite (docs/architecture.md).' }] },
      ],
    },
  },
  {
    files: ['renderer/**/*.{ts,tsx}'],
    rules: { 'no-restricted-syntax': ['error', ...noSqlText, ...noDynamicPglite, ...rendererTypeImportsOnly] },
  },
  {
    files: [`core/${TS}`],
    ignores: FOLDERS.map((folder) => `core/${folder}/**`),
    rules: { 'no-restricted-syntax': ['error', ...noSqlText, ...noDynamicPglite, ...notInLayerTable] },
  },
);
