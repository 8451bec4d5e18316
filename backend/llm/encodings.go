package llm

import (
	"bytes"
	"slices"
)

// Encodings keeps, across the steps of one run, what a provider encoded of
// each message of its requests, by position, so that a step encodes only
// the messages that are new or changed since the previous one (a step's cost
// then does not grow with the history, except for writing the bytes). It
// pairs with Request.Keys: the encoding of message i is reused when the
// request's Keys[i] equals the key it was kept under. The zero value is
// ready to use. It is not safe for concurrent use: a run's requests are
// made one after another, and each is done with it before the next.
type Encodings struct {
	slots []encoded
	kept  int
	// Pieces is scratch space a provider may keep the pieces of its last
	// request body in, to reuse it for the next.
	Pieces [][]byte
	// The tools last encoded, and their encoding: a step's tools are
	// usually the previous step's.
	tools     []ToolSchema
	toolsData []byte
}

type encoded struct {
	key  uint64
	data []byte
}

// Lookup returns the encoding kept for message i under key, if any. The
// bytes are shared: callers must not change them.
func (e *Encodings) Lookup(i int, key uint64) ([]byte, bool) {
	if key == 0 {
		return nil, false
	}
	if i < 0 || i >= len(e.slots) || e.slots[i].key != key {
		return nil, false
	}
	return e.slots[i].data, true
}

// Keep keeps data as the encoding of message i under key, replacing what
// was kept for that position. A zero key keeps nothing.
func (e *Encodings) Keep(i int, key uint64, data []byte) {
	if key == 0 || i < 0 {
		return
	}
	for len(e.slots) <= i {
		e.slots = append(e.slots, encoded{})
	}
	e.slots[i] = encoded{key: key, data: data}
	e.kept++
}

// Kept returns how many encodings were kept so far: the messages encoded
// instead of reused. Tests count it to pin that a step encodes only what
// is new.
func (e *Encodings) Kept() int {
	return e.kept
}

// LookupTools returns the encoding kept for tools, if the tools last kept
// are the same (same names, descriptions and parameter bytes, in order).
func (e *Encodings) LookupTools(tools []ToolSchema) ([]byte, bool) {
	if e.toolsData == nil || !slices.EqualFunc(e.tools, tools, func(a, b ToolSchema) bool {
		return a.Name == b.Name && a.Description == b.Description && bytes.Equal(a.Parameters, b.Parameters)
	}) {
		return nil, false
	}
	return e.toolsData, true
}

// KeepTools keeps data as the encoding of tools (a copy of them is kept).
func (e *Encodings) KeepTools(tools []ToolSchema, data []byte) {
	e.tools = make([]ToolSchema, len(tools))
	for i, t := range tools {
		t.Parameters = bytes.Clone(t.Parameters)
		e.tools[i] = t
	}
	e.toolsData = data
}
