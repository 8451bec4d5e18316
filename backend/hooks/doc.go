// Package hooks reads and runs hooks: commands the user (or a project) set
// to run at points of an agent's turn. A hook gets the event as one JSON
// object on its standard input and may answer with one JSON object, the
// last line of its output: before a tool call allow, deny or ask (deny
// refuses the call, ask makes Foya ask the person even in Full Access),
// and after a call a note for the model. docs/hooks.md is the reference of
// the file format and of both JSON objects.
//
// Two files hold hooks: the user's own (UserFile in Foya's data folder)
// and a project's (ProjectFile in the workspace). A project's hooks run
// only while the user approved the file's exact content (the caller checks
// that with package trust; Load only reads and parses) and always in the
// sandbox, with the policy a sandboxed command of the workspace gets; the
// user's run as configured, outside the sandbox unless "sandbox": true.
//
// Every run is bounded: a timeout (DefaultTimeout unless the hook sets its
// own, at most MaxTimeout) and an output cap (MaxOutput; a hook that
// prints more is stopped, and what it printed beyond is dropped). A hook
// that fails (does not start, exits non-zero, times out, prints too much,
// answers what is not a valid answer) gives an Outcome with Failed set:
// the caller shows it and, before a tool call, refuses the call (fail
// closed).
//
// It imports sandbox and nothing above it. A Runner is safe for
// concurrent use.
package hooks
