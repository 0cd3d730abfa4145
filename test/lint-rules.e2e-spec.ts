import { ESLint, Linter } from 'eslint';

/** What ESLint, as eslint.config.js configures it for `file`, says of `code`'s imports. */
async function importProblems(file: string, code: string): Promise<string[]> {
  const config = (await new ESLint().calculateConfigForFile(file)) as Linter.Config;
  const rule = config.rules?.['no-restricted-imports'];
  return new Linter()
    .verify(code, {
      languageOptions: { sourceType: 'module' },
      rules: { 'no-restricted-imports': rule ?? 'off' },
    })
    .map(({ message }) => message);
}

describe('the lint rule against private paths', () => {
  it.each(['src/core/auth/scopes.ts', 'test/support/routes.ts'])(
    "refuses a Nest package's files and internal entry in %s, not its root",
    async (file) => {
      const refused = [
        "import { PATH_METADATA } from '@nestjs/common/constants.js';",
        "import { RouteParamtypes } from '@nestjs/common/internal';",
        "import { RouterExplorer } from '@nestjs/core/router/router-explorer.js';",
        "import { getSchemaPath } from '@nestjs/swagger/dist/utils/index.js';",
      ];
      for (const line of refused) {
        expect({ line, refused: (await importProblems(file, line)).length > 0 }).toStrictEqual({
          line,
          refused: true,
        });
      }
      await expect(
        importProblems(
          file,
          "import { Controller } from '@nestjs/common';\nimport { Reflector } from '@nestjs/core';",
        ),
      ).resolves.toStrictEqual([]);
    },
  );
});
