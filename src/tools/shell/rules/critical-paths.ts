import type { RuleExamples } from "./examples.js";

/** Top-level folders whose loss breaks the machine or the user's home. */
export const CRITICAL_DIRS = new Set([
  "/",
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/home",
  "/lib",
  "/lib32",
  "/lib64",
  "/opt",
  "/proc",
  "/root",
  "/sbin",
  "/srv",
  "/sys",
  "/usr",
  "/var",
  "/System",
  "/Users",
  "/Applications",
  "/Library",
  "/private",
]);

/** Devices that hold file systems or memory: writing them destroys data. */
export const DEVICE_TARGET =
  /^\/dev\/(sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|loop|sr|mapper\/|mem$|kmem$|port$)|^\/proc\/sysrq-trigger$/;

/** Devices that are fine to write: the bit bucket and the standard streams. */
export const HARMLESS_DEVICES = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+)$/;

/** Lines that destroy the machine or the home folder (always refused), and lines that only look alike. */
export const CRITICAL_PATH_EXAMPLES: RuleExamples = {
  says: /file system root, a system folder or the home folder|writes straight to the device|never run/,
  match: [
    "rm -rf /",
    "rm -rf /usr",
    "rm -rf /etc/",
    "rm -rf ~",
    "rm -rf /home",
    "echo x > /dev/sda",
    "dd if=notes.txt of=/dev/nvme0n1",
    "cat notes.txt > /dev/mem",
  ],
  noMatch: ["rm -rf ./usr", "rm -rf build", "echo x > /dev/null", "cat notes.txt > /dev/stderr", "ls /usr"],
};
