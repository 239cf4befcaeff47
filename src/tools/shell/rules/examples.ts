/**
 * Lines a rule must catch and lines it must let be, kept beside the rule as data and checked
 * against the whole judgement by one test (test/tools/shell/rules.test.ts): a rule that stops
 * catching what it was written for, or starts catching what it was not, fails there.
 */
export interface RuleExamples {
  /** What the examples are about: the text the judgement gives when the rule catches a line. */
  says: RegExp;
  match: readonly string[];
  noMatch: readonly string[];
}
