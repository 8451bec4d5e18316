// The data the kernel hands to front ends, as the UI sees it. The types are
// generated from the Go types (make bindings: ./gen from tygo.yaml and the
// typed API client from backend/api); nothing here copies a Go type by hand.

export type { Info, Session } from "./gen/kernel";
