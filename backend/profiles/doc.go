// Package profiles owns the provider profiles and their keys. A profile
// names a model server (base URL, model, extra headers) and says where its
// key is; the profiles are JSON in the setting providers.profiles, the
// default's name in providers.default, and every change of them is one
// write transaction of the settings table (Settings.UpdateSetting), so two
// processes sharing a database do not lose each other's. Keys, and the
// values of headers that carry credentials, go to the system keyring
// (keys.go), or, where there is none, to KeyFile (mode 0600) in the data
// folder; a locked keyring is an error, never a silent fall back to the
// file. No key is in a setting, a Provider, an error message or a check's
// message.
//
// The Service checks a profile (Test: GET /models, then one tiny streamed
// request), lists a server's models (Models), finds model servers on this
// machine for the first run (ModelServers, ProbeModelServer,
// DiscoverModelServers), asks a server typed into the first run's form for
// its models before it is saved (CheckServer), says a model's context
// window and output limit with where they come from (Window: the server,
// asked a bounded while and kept per profile and model, else the profile's
// ContextWindow and MaxOutput, else a guess; window.go, which also passes
// on the profile's prices per million tokens, checked in prices.go, for
// the meter's cost), keeps whether a
// model takes images (ImageInput)
// and builds a run's model client from a profile under a front end's
// overrides (Client). Every key and credential header a client or a check
// uses is handed to Config.Secrets first, so that no command's environment
// holds it and every tool result, model error and check message masks it;
// a profile's key goes only to the profile's own server.
//
// Its DTOs (dto.go, dto_firstrun.go) are what front ends see; their TypeScript is generated
// (tygo.yaml). Its errors mean the kinds of backend/fault (or
// store.ErrNotFound), so the kernel's Code names them.
//
// It imports store, provider, lockfile, llm and fault, never the kernel, an
// engine or a front end. A Service is safe for concurrent use; the key
// file is changed under a lock file that other Foya processes take too.
package profiles
