// Package settings declares every setting a person can set: its key, the
// kind of value it takes (and so its parser), its default, a short label
// and one line of doc. The kernel's SetSetting and Settings, the help and
// the list of foya settings, and the front end's settings view all read
// Table, so a key declared here is validated, documented and shown
// everywhere, and a key not declared here cannot be set.
//
// The package holds no state and does no I/O: the kernel stores the values
// (in store's settings table) and reads them back. It imports the packages
// whose defaults and limits it names (approval, engine, the file tools,
// provider, secret, workspace), never the kernel or anything above it.
// Keys that another package reads itself keep their literal there too
// (files.MaxWriteSetting); a test keeps them the same.
package settings
