// Package approval owns the approval modes (Manual, Auto, Full Access) and
// the policy that decides, per call, whether an action is allowed, must be
// asked about, or is refused. It reads shell commands with a real shell
// parser (command.go, wrappers.go, deletes.go) to find permanent deletes
// behind wrappers, quoting and interpreters, and commands it cannot read
// (opaque), and it reads rules files: the user's own, which may allow
// anything the mode table asks about, and a project's, whose allow rules
// count only once approved and never for leaving the sandbox or the
// workspace (rules.go, policy.go). Decide is pure; LoadRules reads a file.
//
// It imports package llm and libraries only.
package approval
