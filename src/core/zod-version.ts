/** Whether `value` is a zod 4 schema (zod 3's have `_def` but no `_zod`). */
export function isZod4(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** Whether `value` looks like a zod 3 schema, which tackle cannot use. */
export function isZod3(value: unknown): boolean {
  return typeof value === "object" && value !== null && "_def" in value && !("_zod" in value);
}

export const ZOD3_HELP =
  'is a zod 3 schema; tackle needs zod 4 schemas. With zod 3.25 or later write `import { z } from "zod/v4"`, or upgrade to zod 4.';
