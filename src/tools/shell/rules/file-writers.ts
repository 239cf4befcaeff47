import type { RuleExamples } from "./examples.js";

/** Commands that move or copy files and folders into place. */
export const MOVERS = new Set(["mv", "cp", "rsync", "ln", "install", "rename", "tar", "unzip", "cpio", "ditto"]);

/** Commands whose operands are files they create, change or remove (sed and perl only with -i). */
export const WRITERS = new Set([...MOVERS, "touch", "tee", "rm", "truncate", "chmod", "dd", "mkdir", "patch", "shred"]);

/** Lines whose operands are written (so a file that is code among them needs a person), and lines that only read them. */
export const FILE_WRITER_EXAMPLES: RuleExamples = {
  says: /Makefile/,
  match: [
    "touch Makefile",
    "rm -f Makefile",
    "cp notes.txt Makefile",
    "mv notes.txt Makefile",
    "sed -i s/a/b/ Makefile",
    "perl -pi -e s/a/b/ Makefile",
    "dd if=notes.txt of=Makefile",
    "echo x | tee Makefile",
    "truncate -s 0 Makefile",
    "chmod +x Makefile",
    "ln -sf notes.txt Makefile",
  ],
  noMatch: ["cat Makefile", "sed s/a/b/ Makefile", "grep all Makefile", "wc -l Makefile", "head Makefile"],
};
