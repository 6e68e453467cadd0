// Lint: type-aware rules from docs/style.md, and the layer direction of docs/architecture.md.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = {
  regex: `^(node:.*|${builtinModules.filter((name) => !name.startsWith('_')).join('|')})(/.*)?$`,
  message: 'This layer runs in the browser too: no Node built-ins (docs/architecture.md).',
};

/** Imports a layer may not make, as regexes over the import specifier. */
function forbid(layers, message) {
  return { regex: `(^|/)(${layers.join('|')})(/|$)`, message };
}

/** Tests import a folder's testing.ts (names only tests use); production code never does. */
const noTesting = {
  regex: '(^|/)testing(\\.js)?$',
  message: 'testing modules are for tests only (docs/style.md: one index.ts as the public face).',
};

/** What all of host/ may not import. */
const hostImports = forbid(['remote'], 'host/ never imports remote/.');

function layerRule(...patterns) {
  return { 'no-restricted-imports': ['error', { patterns: [...patterns, noTesting] }] };
}

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'remote/app/dev-dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'TSAsExpression[expression.callee.object.name="JSON"][expression.callee.property.name="parse"]:not([typeAnnotation.type="TSUnknownKeyword"])',
          message: 'Validate parsed JSON with a zod schema instead of casting it (docs/style.md).',
        },
      ],
    },
  },
  {
    files: ['protocol/**'],
    rules: layerRule(
      forbid(['pairing', 'common', 'host', 'remote'], 'protocol/ imports no other folder of ours.'),
      nodeBuiltins,
    ),
  },
  {
    files: ['pairing/**'],
    ignores: ['pairing/node/**'],
    rules: layerRule(
      forbid(['common', 'host', 'remote'], 'pairing/ imports protocol/ only.'),
      nodeBuiltins,
    ),
  },
  {
    // The channel's native primitives: Node only, for the host and the Node client.
    files: ['pairing/node/**'],
    rules: layerRule(forbid(['common', 'host', 'remote'], 'pairing/ imports protocol/ only.')),
  },
  {
    // Code both sides share (the CLIs' flag parser and formatter): host/ and remote/cli
    // import it; it imports protocol/ at most.
    files: ['common/**'],
    rules: layerRule(
      forbid(['pairing', 'host', 'remote'], 'common/ imports protocol/ only, if anything.'),
    ),
  },
  {
    files: ['host/**'],
    rules: layerRule(hostImports),
  },
  {
    // The server drives the runtime, which owns the store. A later rule replaces an
    // earlier one for the same files, so host/'s pattern is repeated here.
    files: ['host/server/**'],
    rules: layerRule(
      hostImports,
      forbid(['store'], 'host/server/ reaches the store through the runtime only.'),
    ),
  },
  {
    files: ['remote/**'],
    ignores: ['remote/client/node/**', 'remote/cli/**', 'remote/app/**'],
    rules: layerRule(
      forbid(['host'], 'remote/ never imports host/.'),
      forbid(['common'], 'common/cli is Node only: remote/cli imports it.'),
      nodeBuiltins,
    ),
  },
  {
    // The PWA: browser only (no Node built-ins, never host/); its build config and icon
    // script run in Node.
    files: ['remote/app/**'],
    ignores: ['remote/app/vite.config.ts', 'remote/app/scripts/**'],
    rules: layerRule(
      forbid(['host'], 'remote/ never imports host/.'),
      forbid(['common'], 'common/cli is Node only: remote/cli imports it.'),
      nodeBuiltins,
    ),
  },
  {
    files: ['remote/client/node/**', 'remote/cli/**'],
    rules: layerRule(forbid(['host'], 'remote/ never imports host/.')),
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
    },
  },
);
