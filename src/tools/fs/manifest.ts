import type { GroupManifest } from "../group.js";

/** The fs group's tools, for the lists derived in ../manifests.ts; its code loads on first use. */
export const FS = {
  names: {
    readFile: "read_file",
    writeFile: "write_file",
    appendFile: "append_file",
    editFile: "edit_file",
    multiEdit: "multi_edit",
    applyPatch: "apply_patch",
    deleteFile: "delete_file",
    moveFile: "move_file",
    copyFile: "copy_file",
    createDirectory: "create_directory",
    listDirectory: "list_directory",
  },
  aliases: { edit: "edit_file" },
  load: async () => (await import("./index.js")).fileTools,
} as const satisfies GroupManifest;
