// Package approval owns the approval modes (Manual, Auto, Full Access) and
// the policy that decides, per call, whether an action is allowed, must be
// asked about, or is refused.
//
// It imports package llm and libraries only.
package approval
