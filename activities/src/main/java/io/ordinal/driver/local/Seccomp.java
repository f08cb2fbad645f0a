package io.ordinal.driver.local;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;

/**
 * The seccomp profile of {@code RuntimeDefault}: the system calls Docker's and containerd's default
 * profiles refuse to a container without CAP_SYS_ADMIN, refused here with EPERM (clone3 with
 * ENOSYS, so that libc falls back to clone, whose namespace flags can be inspected). Written as a
 * list of what is refused rather than of what is allowed: the refusals are the point, and a short
 * list can be read and reviewed. What matters most on this machine: no new namespaces (a user
 * namespace gave an earlier container a mount namespace of its own, and root over its mounts), no
 * mounts, no kernel keyrings, modules, BPF or perf events.
 */
final class Seccomp {
  private static final int EPERM = 1;
  private static final int ENOSYS = 38;
  /** clone(2) flags that make a namespace: CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET. */
  static final long[] NAMESPACE_FLAGS = {0x00020000L, 0x02000000L, 0x04000000L, 0x08000000L, 0x10000000L,
      0x20000000L, 0x40000000L};
  static final List<String> REFUSED = List.of("acct", "add_key", "bpf", "clock_adjtime", "clock_settime",
      "create_module", "delete_module", "finit_module", "fsconfig", "fsmount", "fsopen", "fspick",
      "get_kernel_syms", "get_mempolicy", "init_module", "io_uring_enter", "io_uring_register", "io_uring_setup",
      "ioperm", "iopl", "kexec_file_load", "kexec_load", "keyctl", "lookup_dcookie", "mbind", "mount",
      "mount_setattr", "move_mount", "move_pages", "name_to_handle_at", "nfsservctl", "open_by_handle_at",
      "open_tree", "perf_event_open", "pivot_root", "query_module", "quotactl", "quotactl_fd", "reboot",
      "request_key", "set_mempolicy", "setns", "settimeofday", "stime", "swapoff", "swapon", "syslog", "sysfs",
      "_sysctl", "umount", "umount2", "unshare", "uselib", "userfaultfd", "ustat", "vm86", "vm86old");

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Profile(String defaultAction, List<String> architectures, List<Rule> syscalls) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Rule(List<String> names, String action, Integer errnoRet, List<Arg> args) {}

  /** For SCMP_CMP_MASKED_EQ, the argument masked with {@code value} equals {@code valueTwo}. */
  record Arg(int index, long value, long valueTwo, String op) {}

  static final Profile RUNTIME_DEFAULT = profile();

  private Seccomp() {}

  private static Profile profile() {
    List<Rule> rules = new ArrayList<>();
    rules.add(new Rule(REFUSED, "SCMP_ACT_ERRNO", EPERM, null));
    rules.add(new Rule(List.of("clone3"), "SCMP_ACT_ERRNO", ENOSYS, null));
    for (long flag : NAMESPACE_FLAGS) {
      // One rule a flag: rules of one syscall are alternatives, the args of one rule all must match.
      rules.add(new Rule(List.of("clone"), "SCMP_ACT_ERRNO", EPERM, List.of(new Arg(0, flag, flag, "SCMP_CMP_MASKED_EQ"))));
    }
    // The machine's architecture and those its kernel also runs (a 32-bit binary must not bypass the filter).
    List<String> architectures = "aarch64".equals(System.getProperty("os.arch"))
        ? List.of("SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM")
        : List.of("SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32");
    return new Profile("SCMP_ACT_ALLOW", architectures, List.copyOf(rules));
  }
}
