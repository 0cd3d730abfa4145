import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/',
      'coverage/',
      'node_modules/',
      'bench/results/',
      'clients/typescript/dist/',
      'clients/typescript/src/generated/',
      'clients/typescript/examples/hey-api/generated/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // A library's public API only: what a minor release may change without notice is not ours to use.
    files: ['src/**/*.ts', 'test/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(@[^/]+/)?[^./][^/]*/(.+/)?(dist|cjs|esm|lib)(/|$)',
              message: "A package's build folders are not its API: import what the package exports.",
            },
            {
              // '@nestjs/common/constants.js', '@nestjs/common/internal', '@nestjs/core/router/…'.
              regex: '^@nestjs/[^/]+/.+',
              message:
                "A Nest package's API is its root ('@nestjs/common', '@nestjs/core'); its files and its 'internal' entry are not.",
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression[expression.type='TSAsExpression'][typeAnnotation.type='TSTypeLiteral']",
          message: 'A double cast to an object type reaches members a type does not declare: use public API.',
        },
        {
          selector: "CallExpression[callee.object.name='Object'][callee.property.name='setPrototypeOf']",
          message: "Re-parenting a library's objects depends on its internals.",
        },
      ],
    },
  },
  {
    files: ['**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // Command-line scripts talk to their user on the console.
    files: ['scripts/**', 'bench/**', 'clients/typescript/examples/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // The `nest g` collection: the CLI's schematics engine loads its factories with require().
    files: ['schematics/**/*.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts', 'src/**/*.spec.ts'],
    rules: {
      // supertest bodies and jest matchers are typed `any` by their libraries.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  prettier,
);
