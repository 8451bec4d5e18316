// Package sandbox starts shell commands restricted per policy, ends them as a
// whole process tree, and keeps their output bounded.
//
// It is the third of Foya's three layers (spec A1): the tool registry decides
// which tools exist, the approval gateway whether one call is allowed, and this
// package what an allowed process can reach. A restricted command may read the
// filesystem except [Policy.Hidden] (credential stores, Foya's database and
// data folder) and the socket folders below, write only the directories of
// [Policy.Writable] (minus [Policy.ReadOnly] and [Policy.ReadOnlyIfExists]),
// connect to no pathname UNIX socket outside Writable, and reach no network
// unless [Policy.Network] is set. An unrestricted command (Full Access, or an
// approved escalation) has no restriction at all, but it still belongs to
// its call: it runs below the helper as its subreaper (see "Processes and
// output"), in its own process
// group with bounded output.
//
// # What every mechanism holds on Linux
//
// Confinement is applied by the helper ([HelperMain]) before the shell
// starts: the small helper of this build (cmd/foya-sandbox, found beside the
// binary or in ../lib/foya, used only when it answers with this build's
// [HelperStamp] and only its owner can replace it), else a re-executed copy
// of the current binary (see [HelperArg]). Both run the same code; the
// small one starts in a fraction of the time, which every command pays.
// [Result.Sandbox] names what confined a command. The mount-namespace
// mechanisms ("landlock+netns", "landlock+userns", "bubblewrap") hold:
//
//   - Writes: the mount tree is read-only recursively; Writable are bind
//     mounts made writable again, ReadOnly (directories or files, such as
//     every .git, .agents and .foya) bind mounts made read-only, so writes,
//     renames, links, chmod and utimes outside them fail with EROFS. A
//     missing ReadOnly folder is made empty on the host for as long as a
//     command relies on it, then removed (see Policy.ReadOnly).
//   - UNIX sockets: /tmp, /var/tmp, /run (and /var/run, /dev/log through it)
//     and $XDG_RUNTIME_DIR are covered by empty read-only file systems, the
//     Writable folders inside them (the session's temp folder, a workspace
//     in /tmp) bound back; every other pathname socket this network
//     namespace listens on when the command starts (/proc/net/unix) is
//     covered by an empty file. A socket bound elsewhere after the command
//     started stays reachable. Abstract sockets are per network namespace:
//     unreachable without Network. Sockets below Writable work.
//   - Reading: a Hidden folder is covered by an empty read-only tmpfs, a
//     Hidden file by /dev/null (read-only); neither can be renamed or
//     replaced (a mount point), even inside Writable.
//
// Per mechanism:
//
//   - "landlock+netns": the helper runs in new user, mount, PID and network
//     namespaces and builds the tree above. Landlock (the best ABI the kernel
//     offers) additionally allows writes only below Writable and a few devices,
//     and forbids any later mount change; all capabilities are dropped before
//     the shell starts. The network namespace has only its own loopback (up, so
//     that tests may start local servers): the host's network and its loopback
//     are unreachable. A command whose Policy names a [Loopback] shares
//     that namespace (and its user namespace) with the other commands
//     naming it: nsenter joins them, then unshare makes the command's own
//     mount, PID and IPC namespaces and forks the helper as their PID 1,
//     killing it if unshare dies. The helper stays as PID 1 of the PID namespace, so
//     when it ends, or Foya dies (PR_SET_PDEATHSIG), every process of the
//     command dies with it, even those that left the process group. The
//     command gets a private /dev/shm and a procfs of its own PID namespace.
//   - "landlock+userns": the same with Network set: no network namespace.
//   - "landlock+seccomp": user namespaces are refused (for example by Ubuntu's
//     AppArmor restriction). Landlock alone confines files; a ReadOnly or
//     Hidden path inside a granted hierarchy is carved out by granting the
//     right to its siblings only, so new entries cannot be created (nor,
//     for Hidden, files read) directly in the directories on the path to it
//     (stricter than asked, never looser); those directories can still be
//     listed, so a hidden path's name shows, never its content. Metadata
//     changes (chmod, chown, utimes) outside Writable are NOT blocked:
//     Landlock does not cover them, which [Capability.Weaker] says, so the
//     shell tool asks before every command in every mode but Full Access.
//     /dev/shm stays the host's, so it is not writable. The network is cut
//     by a seccomp filter refusing socket(2) for every family, AF_UNIX
//     included (no UNIX socket can be made, in the workspace either;
//     socketpair(2) works), io_uring (which could bypass it) and every
//     system call of another architecture, plus Landlock's TCP rules where
//     the ABI has them. From Landlock ABI 9, Landlock refuses connecting to
//     sockets outside Writable instead and AF_UNIX is allowed. The helper
//     stays as the shell's parent and subreaper, as for unrestricted
//     commands (see "Processes and output"), so the whole tree dies with
//     the command and with Foya.
//   - "landlock": "landlock+seccomp" with Network set: the seccomp filter
//     refuses AF_UNIX sockets only (before ABI 9).
//   - "bubblewrap": no Landlock in the kernel (or the helper fails); bwrap
//     builds the same read-only mount tree in its own user, mount, PID and
//     (unless Network) network namespaces. bwrap reports a shell killed by
//     signal N as exit code 128+N, so Result.Signal stays empty. bwrap
//     itself runs as PID 1 of a PID namespace of the runner's own (in a
//     user namespace unless Foya runs as root), so that when it ends, or
//     Foya dies, the kernel ends every process below it. bwrap's
//     --die-with-parent alone does not hold while bwrap sets up: its init
//     arms PR_SET_PDEATHSIG only at the end of the setup, so a sandbox
//     whose Foya died meanwhile would live on (a known bubblewrap race).
//     As PID 1, bwrap ignores SIGTERM: cancelling reaches the shell and
//     the rest of the group directly, and SIGKILL after the grace period
//     ends bwrap too. Where Foya cannot create these namespaces, bwrap runs
//     without them, and that race remains. Start returns once bwrap has
//     set the sandbox up (a first sh in it says so on a pipe, then runs the
//     shell): a setup that failed is an ErrUnavailable error, never the
//     command's result. bwrap covers each socket by its path and makes a
//     missing one in the read-only tree, which fails; when a listed socket
//     (or hidden path) vanished before the setup, the launch is tried again
//     with a fresh listing, as the helper skips such a path.
//   - "none": the command was not restricted: the helper confines nothing,
//     it only reaps (no namespace, no Landlock, no seccomp, no
//     no_new_privs: sudo, setuid programs, the network, the user's own
//     uid and files all work as outside Foya).
//
// [Probe] reports which mechanism works here; when nothing can confine, its
// Mechanism is empty with a Reason, and [Start] refuses restricted commands
// with [ErrUnavailable] so that callers ask the user instead of pretending.
//
// Landlock is applied to the helper's one locked thread, from which the
// shell starts; its other threads (signal forwarding, reaping) stay outside
// the domain so that Landlock's signal scoping lets them signal the shell.
//
// A fork bomb is bounded in the namespaced mechanisms by the command's own
// PID namespace: its pid_max (per namespace since Linux 6.14) is set to the
// process budget (4096 tasks; the kernel's minimum is 301), which binds
// every user, root included. RLIMIT_NPROC is set too: inside the command's
// user namespace the kernel counts that namespace's tasks only, but it
// exempts the host's root. On older kernels, for root, the helper counts the
// namespace's processes every 50ms and ends the command past the budget (best
// effort: a bomb that starves the helper can outrun it). Without namespaces
// RLIMIT_NPROC is set to the user's current task count plus the budget,
// which does not bind root. bubblewrap and Full Access commands are not
// bounded.
//
// # Other systems
//
// macOS runs restricted commands under sandbox-exec with a generated Seatbelt
// profile ("seatbelt": writes only below Writable, none below ReadOnly, no
// reads or writes of Hidden, no network, UNIX sockets included, unless
// Network); processes that leave the group are not followed. Windows cannot restrict a process's files or network
// without administrator setup: Probe says so, restricted commands are refused,
// and unrestricted ones run in a Job Object that ends the whole tree.
//
// # Processes and output
//
// Every command runs in its own session (setsid, so also its own process
// group) without a controlling terminal and with stdin at end of file, so a
// command waiting for a terminal or for input fails at once instead of
// hanging.
//
// Every command belongs to its call and dies with it, in every mechanism,
// Full Access included (spec X1). Two mechanisms hold the tree:
//
//   - A PID namespace ("landlock+netns", "landlock+userns", "bubblewrap"):
//     the helper (or bwrap) is its PID 1. Cancelling, the timeout and
//     [Process.Kill] send SIGTERM to the group (PID 1 forwards it to every
//     process of the namespace), wait a grace period of two seconds, then
//     send SIGKILL; when PID 1 ends, or Foya dies (PR_SET_PDEATHSIG), the
//     kernel kills every process of the namespace.
//   - A subreaper helper ("none", "landlock", "landlock+seccomp"): the
//     helper sets PR_SET_CHILD_SUBREAPER and starts the shell as its child,
//     so every process the command leaves behind (setsid, nohup, a double
//     fork) is reparented to the helper, not to the host's init, and stays
//     its descendant. Cancelling sends SIGTERM to the helper, which forwards
//     it to every descendant it finds in /proc; after the grace period the
//     runner sends SIGUSR1, and the helper SIGKILLs every descendant. Its
//     parent-death signal is SIGUSR1 too, so when Foya dies (even by
//     SIGKILL) the helper lives on long enough to kill the tree. When the
//     shell ends, the helper kills what is left, again and again, until it
//     has no child at all (then no descendant is left: every orphan comes
//     to it), reports how the shell ended and exits. Only if the helper
//     itself does not end does the runner SIGKILL the group.
//
// Why a subreaper and not a PID namespace or a cgroup for Full Access: a
// PID namespace needs a user namespace unless Foya runs as root, and a
// user namespace is not unrestricted (setuid programs and sudo stop
// working, the uid is mapped); even for root, a PID namespace without a
// mount namespace leaves /proc showing the host's PIDs, which then name
// other processes or none (kill $(pgrep x) would miss or hit the wrong
// one), and with its own /proc the command cannot see the user's other
// processes. A cgroup v2 leaf with cgroup.kill needs a writable, delegated
// cgroup tree, which many desktops and containers do not give. The
// subreaper needs no privilege and works on every Linux since 3.4, and
// one mechanism for every user is simpler to trust than two.
//
// What the subreaper does not hold, because the command runs as the user
// without restriction: a command that kills the helper itself (kill -9
// $PPID) orphans the rest of its tree to the host; a process that changed
// user (sudo, a setuid program) dies only if the user may signal it; and
// a process stuck in the kernel (an unreachable network file system) is
// left behind after ten seconds. In "landlock" and "landlock+seccomp" the
// helper's thread that starts the shell is in the Landlock domain, so the
// command may signal the helper too. In every mechanism, when the helper
// has ended, what is left of the group is killed, and Done waits until
// those processes are dead (for at most five seconds without a PID
// namespace). Processes are started from one locked OS thread so that
// PR_SET_PDEATHSIG (which follows the forking thread) stays armed.
//
// The helper gets the shell's environment, never Foya's: a command can
// read its helper's /proc/PID/environ.
//
// Combined stdout and stderr go to one ring buffer of fixed size that counts
// every byte and line, so memory stays flat whatever a command prints (spec
// O2, O3, O4, B2).
//
// Result.Denials read the kept output, line by line: a refused write
// (EACCES, EPERM, EROFS, EXDEV, EBUSY) naming a path outside Writable or
// inside ReadOnly that the user could write without the sandbox; "No such
// file or directory" on a path in a socket folder the mechanism covers
// with an empty one (/tmp, /run) that exists on the host (or whose folder
// below the covered one does); an error naming a Hidden path that exists; a failed connection to a socket outside
// Writable that exists on the host; a network failure while the network is
// cut, with the host and port the message names (a URL, curl's "Failed to
// connect to H port P", Go's "dial tcp H:P", bash's /dev/tcp/H/P, ...). Each
// is said in one sentence ([Denial.Text]). They are hints, not facts the
// kernel recorded: they miss failures that print nothing (a DNS lookup that
// just fails, UDP) or word them their own way. (Recording refusals as they
// happen would take a seccomp notifier or Landlock's audit records, both
// beyond what this package can rely on across kernels.)
//
// This package imports no other foya package. All exported functions and the
// methods of [Process] are safe for concurrent use.
package sandbox
