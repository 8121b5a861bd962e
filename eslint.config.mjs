import next from "eslint-config-next";
import nextTypescript from "eslint-config-next/typescript";

const config = [
  ...next,
  ...nextTypescript,
  {
    ignores: [".next/**", ".next-*/**", ".scratch/**", "node_modules/**", "lib/db/generated/**", "prisma/postgres/**", "data/**",
      "test-results/**", "playwright-report/**", "tests/artifacts/**", "next-env.d.ts"],
  },
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
];
export default config;
