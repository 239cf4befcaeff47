/**
 * A seccomp filter for the sandbox (bwrap --seccomp FD): system calls that sandboxed code never
 * needs and that widen the kernel's attack surface fail with EPERM. It follows the list Flatpak
 * uses (kernel keyrings, perf, bpf, userfaultfd, mount and module calls, ...) and adds io_uring,
 * whose bugs have been a favourite way out of containers. Namespaces, dropped capabilities and
 * the read-only mounts are the main walls; this is depth behind them.
 *
 * The program is classic BPF, built here rather than with libseccomp (a native dependency):
 * check the architecture (a 32-bit `int 0x80` or an x32 call would otherwise use other numbers),
 * then compare the system call number against the list.
 */

const SYSCALLS: Readonly<Record<string, { x64?: number; arm64?: number }>> = {
  syslog: { x64: 103, arm64: 116 },
  uselib: { x64: 134 },
  acct: { x64: 163, arm64: 89 },
  mount: { x64: 165, arm64: 40 },
  umount2: { x64: 166, arm64: 39 },
  pivot_root: { x64: 155, arm64: 41 },
  quotactl: { x64: 179, arm64: 60 },
  add_key: { x64: 248, arm64: 217 },
  request_key: { x64: 249, arm64: 218 },
  keyctl: { x64: 250, arm64: 219 },
  init_module: { x64: 175, arm64: 105 },
  delete_module: { x64: 176, arm64: 106 },
  finit_module: { x64: 313, arm64: 273 },
  kexec_load: { x64: 246, arm64: 104 },
  kexec_file_load: { x64: 320, arm64: 294 },
  migrate_pages: { x64: 256, arm64: 238 },
  move_pages: { x64: 279, arm64: 239 },
  perf_event_open: { x64: 298, arm64: 241 },
  open_by_handle_at: { x64: 304, arm64: 265 },
  setns: { x64: 308, arm64: 268 },
  bpf: { x64: 321, arm64: 280 },
  userfaultfd: { x64: 323, arm64: 282 },
  io_uring_setup: { x64: 425, arm64: 425 },
  io_uring_enter: { x64: 426, arm64: 426 },
  io_uring_register: { x64: 427, arm64: 427 },
};

/** `socket` itself, refused for AF_UNIX when the sandbox has no network (see seccompProgram). */
const SOCKET = { x64: 41, arm64: 198 } as const;
const AF_UNIX = 1;
/** seccomp_data.args[0], low 32 bits (little-endian). */
const OFFSET_ARG0 = 16;

/** The system calls the filter refuses, by name. */
export const BLOCKED_SYSCALLS: readonly string[] = Object.keys(SYSCALLS);

const ARCH = {
  x64: { audit: 0xc000003e, x32Bit: 0x40000000 },
  arm64: { audit: 0xc00000b7, x32Bit: undefined },
} as const;

// BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const BPF_LD_W_ABS = 0x20;
const BPF_JMP_JEQ_K = 0x15;
const BPF_JMP_JGE_K = 0x35;
const BPF_RET_K = 0x06;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;
const EPERM = 1;
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;

type Insn = [code: number, jt: number, jf: number, k: number];

/**
 * The filter as bytes for bwrap's --seccomp, or undefined on an architecture without a table
 * here (the sandbox then runs without one; the other walls still hold).
 *
 * With `noUnixSockets`, creating an AF_UNIX socket fails too: a socket some host process left in
 * the workspace (or any path the sandbox can see) would otherwise be a way to talk to the world
 * from a sandbox without a network. `socketpair` stays allowed: it reaches nothing outside.
 */
export function seccompProgram(arch: string = process.arch, options: { noUnixSockets?: boolean } = {}): Buffer | undefined {
  if (arch !== "x64" && arch !== "arm64") return undefined;
  const a = ARCH[arch];
  const numbers = Object.values(SYSCALLS)
    .map((s) => s[arch])
    .filter((n): n is number => n !== undefined);
  const body: Insn[] = [];
  // Filled in once the position of the final DENY is known: [index, "jt" | "jf"].
  const toDeny: Array<[number, "jt" | "jf"]> = [];
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_ARCH]);
  toDeny.push([body.length, "jf"]);
  body.push([BPF_JMP_JEQ_K, 0, 0, a.audit]);
  body.push([BPF_LD_W_ABS, 0, 0, OFFSET_NR]);
  if (a.x32Bit !== undefined) {
    toDeny.push([body.length, "jt"]);
    body.push([BPF_JMP_JGE_K, 0, 0, a.x32Bit]);
  }
  for (const nr of numbers) {
    toDeny.push([body.length, "jt"]);
    body.push([BPF_JMP_JEQ_K, 0, 0, nr]);
  }
  if (options.noUnixSockets) {
    // socket(AF_UNIX, ...) → deny; any other call or family → allow (jump over the next two).
    body.push([BPF_JMP_JEQ_K, 0, 2, SOCKET[arch]]);
    body.push([BPF_LD_W_ABS, 0, 0, OFFSET_ARG0]);
    toDeny.push([body.length, "jt"]);
    body.push([BPF_JMP_JEQ_K, 0, 0, AF_UNIX]);
  }
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW]);
  const deny = body.length;
  body.push([BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | EPERM]);
  for (const [i, field] of toDeny) {
    const offset = deny - i - 1;
    if (offset > 255) throw new Error("seccomp program too long for a direct jump");
    body[i]![field === "jt" ? 1 : 2] = offset;
  }
  // struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; }, in the machine's byte order
  // (little-endian on both architectures above).
  const out = Buffer.alloc(body.length * 8);
  body.forEach(([code, jt, jf, k], i) => {
    out.writeUInt16LE(code, i * 8);
    out.writeUInt8(jt, i * 8 + 2);
    out.writeUInt8(jf, i * 8 + 3);
    out.writeUInt32LE(k >>> 0, i * 8 + 4);
  });
  return out;
}
