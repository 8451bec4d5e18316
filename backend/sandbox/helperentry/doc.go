// Package helperentry starts the sandbox helper (sandbox.HelperMain) from
// package initialisation, when the program's first argument is
// sandbox.HelperArg. A program imports it for that side effect only:
//
//	import _ "foya/backend/sandbox/helperentry"
//
// Why: every shell command starts the running binary again as its helper,
// and Go initialises every package a binary links before main runs. Foya's
// binary links far more than the helper needs (the tool registry's JSON
// Schema library compiles its meta-schemas at initialisation, about 3 ms;
// SQLite, Wails), so a helper started from main paid for all of it at every
// command. Go initialises a package after the packages it imports and
// otherwise in import path order, so this package, which imports the
// sandbox only, runs before most of the rest (tests/helper_start_test.go
// pins which). Correctness does not depend on that order: the packages the
// helper uses are the sandbox's imports, initialised before this one by
// the language's rules; the order only decides how much is skipped.
//
// It imports backend/sandbox and the standard library only.
package helperentry
