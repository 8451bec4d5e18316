// Package server is foya serve: the kernel over HTTP and server-sent events
// on the loopback interface, for a browser on the same machine (and for the
// browser end-to-end tests).
//
// Security model. The server binds 127.0.0.1 and [::1] only and refuses any
// other address. A random token guards every API request, sent as
// Authorization: Bearer T; a request without it gets 401 and no data. No
// cookie is ever set: cookies are not scoped to a port, so the browser
// would send one to every other server on 127.0.0.1. The URL printed at
// start carries the token in its fragment (#token=T), which the browser
// never sends; the page keeps it in its tab's sessionStorage and sends the
// header itself. The front end's files hold no data and need no token;
// they carry a Content-Security-Policy (script only from our files). The
// Host header must name a loopback host with the server's port (a
// DNS-rebinding page has its own host name there), and a state-changing
// request that carries an Origin must name that same host and port.
// Artifacts are served with a sandboxing Content Security Policy, so that
// an SVG cannot run script in our origin. Idle keep-alive connections are
// closed after Options.IdleTimeout.
//
// Routes: POST /api/call/{Method} calls an api.Service method by
// reflection (the body is the JSON array of its arguments);
// GET /api/sessions lists sessions; GET /api/sessions/{id}/events streams a
// session's events as SSE (id: seq), replaying those after Last-Event-ID
// or ?after= and then the live ones, with no gap and no duplicate;
// GET /api/events streams every session's live events;
// GET /api/sessions/{id}/artifacts/{artifactId} serves an artifact's bytes;
// everything else is the embedded front end.
//
// Each SSE client has a bounded buffer: one that does not read is dropped
// (it resumes with Last-Event-ID), so a stuck client never grows memory
// and never slows the kernel, whose publisher only ever does a
// non-blocking send. Serve shuts down gracefully when its context ends.
//
// server imports api, kernel and the vocabulary packages; never the Wails
// runtime. A Server is safe for concurrent use.
package server
