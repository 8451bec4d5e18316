package llm

// DeltaKind tells what a Delta carries.
type DeltaKind int

const (
	// DeltaText carries a piece of the assistant's text in Text.
	DeltaText DeltaKind = iota + 1
	// DeltaReasoning carries a piece of the model's reasoning in Text.
	DeltaReasoning
	// DeltaToolCall carries a piece of a tool call: Index always, and any of
	// ID, Name and Args (a fragment to append to the call's arguments). The
	// first delta for an Index that has a Name opens the call. Index names
	// one call of the stream and orders the calls: the model's order is
	// ascending Index (the server's index when it sent a usable one), which
	// need not be the order in which the calls opened, nor start at 0, nor
	// be dense.
	DeltaToolCall
	// DeltaUsage carries the step's token counts in Usage.
	DeltaUsage
	// DeltaWithdraw takes back the call of Index announced earlier in the
	// stream: it is not part of the answer and must not run. A provider
	// sends it for a call it read from the model's text when the server
	// then sent native calls (tool-call mode auto, issue 28); no delta of
	// that Index follows it.
	DeltaWithdraw
	// DeltaDone ends a complete stream; FinishReason says why the model
	// stopped. A stream that ends without DeltaDone ended early and must be
	// treated as failed: no tool of it may run.
	DeltaDone
)

// Delta is one item of a model's streamed answer, normalised across servers.
// Providers guarantee: tool-call deltas carry a stable Index, unique to their
// call within the stream and ordering the calls as the model did; the ID of a
// call is set on its first delta (assigned by the provider when the server
// sent none); a call announced may be taken back (DeltaWithdraw) before
// DeltaDone, and is then no call of the answer; and DeltaDone comes last and
// only after a complete stream.
type Delta struct {
	Kind         DeltaKind
	Text         string
	Index        int
	ID           string
	Name         string
	Args         string
	Usage        Usage
	FinishReason string
}
